// SPEC 19, 32: with several clusters two of them may each have a node of
// one name; the worker's health lines tell them apart by their cluster,
// and a cluster none of whose nodes can take a VM is told once.
import { expect } from 'chai';
import type { NodeHealth } from '../../src/provider/types.js';
import { reportHealth } from '../../src/worker/health-report.js';
import { captureLogger } from '../support/capture-logger.js';

const up = (cluster: string): NodeHealth => ({ node: 'pve1', cluster, ok: true, reasons: [] });
const down = (cluster: string): NodeHealth => ({ node: 'pve1', cluster, ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED' }] });

describe("the worker's health lines name the cluster (SPEC 19, 32)", () => {
  it('a node is its cluster\'s: one failing is told naming its cluster, the same name up on another is not confused with it', () => {
    const { logger, records } = captureLogger('info');
    reportHealth(logger, [up('east'), up('west')], undefined);
    reportHealth(logger, [up('east'), down('west')], [up('east'), up('west')]);
    reportHealth(logger, [up('east'), down('west')], [up('east'), down('west')]);
    reportHealth(logger, [up('east'), up('west')], [up('east'), down('west')]);
    expect(records.map((r) => [r.level, r.msg])).to.deep.equal([
      [40, 'node pve1 of cluster west failed the health check: Unreachable (connect ECONNREFUSED)'],
      [40, 'no node of cluster west can take a VM: its creates wait and retry until one of its nodes passes the health check'],
      [30, 'node pve1 of cluster west passes the health check again'],
    ]);
    expect(records[0]).to.include({ node: 'pve1', cluster: 'west' });
  });
});
