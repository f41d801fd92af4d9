// Issue 26, SPEC 19: a worker whose nodes cannot take VMs says so at
// start, one warn line per node naming it and the check that failed, and
// one line saying no node can take a VM; afterwards the health job's
// results are told only when they change. Real workers on the real Redis,
// the provider double's health answering what each test sets.
import { expect } from 'chai';
import type { NodeHealth } from '../../src/provider/types.js';
import { readLastHealth } from '../../src/queue/health-store.js';
import { captureLogger } from '../support/capture-logger.js';
import { createHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/redis.js';

type LogRecord = Record<string, unknown>;

const WARN = 40;
const unreachable: NodeHealth = { node: 'pve1', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 127.0.0.1:8006' }] };
const noToken: NodeHealth = { node: 'pve2', ok: false, reasons: [{ reason: 'CredentialsUnavailable', detail: 'the token file var/proxmox-token does not exist' }] };
const fit = (node: string): NodeHealth => ({ node, ok: true, reasons: [] });

describe('the worker tells node health at start and when it changes (issue 26, SPEC 19)', function () {
  let h: Harness;
  let answers: NodeHealth[];

  beforeEach(() => {
    h = createHarness('health-start');
    answers = [unreachable, noToken];
    h.provider.health = () => Promise.resolve(answers);
  });
  afterEach(async () => {
    await h.close();
  });

  const healthLines = (records: LogRecord[]): LogRecord[] => records.filter((r) => typeof r.msg === 'string' && /health check|can take a VM/.test(r.msg));

  async function runHealthJob(): Promise<void> {
    const job = await h.queues.system.add('health', {});
    await eventually(async () => ((await h.queues.system.getJobState(job.id ?? '')) === 'completed' ? true : undefined), 15_000);
  }

  it('at start: one warn line per failing node naming it and the check, one saying no node can take a VM, and the result stored', async () => {
    const { logger, records } = captureLogger('info');
    await h.startWorker({ logger, healthAtStart: true });
    const lines = await eventually(() => Promise.resolve(healthLines(records).length >= 3 ? healthLines(records) : undefined), 15_000);
    expect(lines.map((r) => [r.level, r.msg])).to.deep.equal([
      [WARN, 'node pve1 failed the health check: Unreachable (connect ECONNREFUSED 127.0.0.1:8006)'],
      [WARN, 'node pve2 failed the health check: CredentialsUnavailable (the token file var/proxmox-token does not exist)'],
      [WARN, 'no node can take a VM: creates wait and retry until a node passes the health check'],
    ]);
    expect(lines[0]).to.deep.include({ node: 'pve1', reasons: ['Unreachable'] });
    const stored = await eventually(async () => (await readLastHealth(h.redis, h.prefix))?.nodes, 15_000);
    expect(stored).to.deep.equal([unreachable, noToken]);
  });

  it('then a line only when a node changes: the same result again says nothing, a node fit again is one info line', async () => {
    const { logger, records } = captureLogger('info');
    await h.startWorker({ logger, healthAtStart: true });
    await eventually(() => Promise.resolve(healthLines(records).length >= 3 ? true : undefined), 15_000);
    const atStart = healthLines(records).length;

    await runHealthJob();
    expect(healthLines(records).slice(atStart), 'unchanged').to.deep.equal([]);
    expect(records.filter((r) => r.job === 'health' && r.msg === 'job ended'), 'a health job that completes is no info line').to.deep.equal([]);

    answers = [fit('pve1'), noToken];
    await runHealthJob();
    expect(healthLines(records).slice(atStart).map((r) => [r.level, r.msg])).to.deep.equal([[30, 'node pve1 passes the health check again']]);

    answers = [unreachable, noToken];
    await runHealthJob();
    expect(healthLines(records).slice(atStart + 1).map((r) => r.msg)).to.deep.equal([
      'node pve1 failed the health check: Unreachable (connect ECONNREFUSED 127.0.0.1:8006)',
      'no node can take a VM: creates wait and retry until a node passes the health check',
    ]);
  });

  it('a close while the check at start waits on Proxmox aborts it: nothing stored, no warn line', async () => {
    let signalled: AbortSignal | undefined;
    h.provider.health = ({ signal }) =>
      new Promise<NodeHealth[]>((_resolve, reject) => {
        signalled = signal;
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    const { logger, records } = captureLogger('info');
    const worker = await h.startWorker({ logger, healthAtStart: true });
    await eventually(() => Promise.resolve(signalled), 15_000);
    await worker.close(1000);
    expect(signalled?.aborted, 'the check was aborted').to.equal(true);
    expect(records.filter((r) => r.level === WARN).map((r) => r.msg)).to.deep.equal([]);
    expect(await readLastHealth(h.redis, h.prefix)).to.equal(undefined);
  });

  it('a worker whose nodes all pass says so in one info line at start', async () => {
    answers = [fit('pve1'), fit('pve2')];
    const { logger, records } = captureLogger('info');
    await h.startWorker({ logger, healthAtStart: true });
    const lines = await eventually(() => Promise.resolve(healthLines(records).length > 0 ? healthLines(records) : undefined), 15_000);
    expect(lines.map((r) => [r.level, r.msg])).to.deep.equal([[30, 'health check at start: every node passes']]);
  });
});
