// SPEC 19, SPEC 28: a node's notes (a protected template) are told once
// when they appear or change, as warn lines naming the node, and do not
// make the node unfit.
import { expect } from 'chai';
import type { NodeHealth } from '../../src/provider/types.js';
import { reportHealth } from '../../src/worker/health-report.js';
import { captureLogger } from '../support/capture-logger.js';

const NOTE = "image default's template 9001 on node pve1 (t) is protected: every clone copies protection: 1, and the create deletes it";
const noted: NodeHealth = { node: 'pve1', ok: true, reasons: [], notes: [NOTE] };
const plain: NodeHealth = { node: 'pve1', ok: true, reasons: [] };

describe('the worker tells a node health note once (SPEC 19, SPEC 28)', () => {
  it('at start, then not again while it stands, and again once it came back after going', () => {
    const { logger, records } = captureLogger('info');
    reportHealth(logger, [noted], undefined);
    reportHealth(logger, [noted], [noted]);
    reportHealth(logger, [plain], [noted]);
    reportHealth(logger, [noted], [plain]);
    const said = records.filter((r) => String(r.msg).includes('is protected'));
    // 40 is pino's warn.
    expect(said.map((r) => [r.level, r.msg])).to.deep.equal([
      [40, `node pve1: ${NOTE}`],
      [40, `node pve1: ${NOTE}`],
    ]);
    expect(records.some((r) => String(r.msg).includes('failed the health check'))).to.equal(false);
  });
});
