// Issue 26: at the default log level the worker writes one line for each
// attempt that ends: "job ended" with the outcome (completed, superseded,
// failed, with the reason) and "job attempt failed, will retry" for a
// retried one, each with the job's id, name and duration. Real workers on
// the real Redis, the provider double behind them.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { captureLogger } from '../support/capture-logger.js';
import { createHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/redis.js';

type LogRecord = Record<string, unknown>;

const INFO = 30;
const WARN = 40;

describe('a log line for each job that ends (issue 26)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  const endsOf = (records: LogRecord[], jobId: string): LogRecord[] =>
    records.filter((r) => r.jobId === jobId && (r.msg === 'job ended' || r.msg === 'job attempt failed, will retry'));

  it('says completed, retried with its reason, failed with its reason, and superseded, with id, name and duration', async () => {
    h = createHarness('job-end-log', { config: { jobs: { attempts: 3, backoffMs: 50 } } });
    const { logger, records } = captureLogger('info');
    await h.startWorker({ logger });

    h.provider.createFailures.push(new TransientError('pve1 did not answer', { reason: 'Proxmox did not answer within 60000 ms' }));
    const retried = await h.client.createVm({ name: 'end-1', uid: 'u1' });
    await h.client.waitForJob(retried.jobId, { timeoutMs: 20_000 });
    const retriedLines = await eventually(() => Promise.resolve(endsOf(records, retried.jobId).length >= 2 ? endsOf(records, retried.jobId) : undefined), 10_000);
    expect(retriedLines.map((r) => [r.msg, r.outcome, r.attempt, r.level])).to.deep.equal([
      ['job attempt failed, will retry', 'retried', 1, INFO],
      ['job ended', 'completed', 2, INFO],
    ]);
    expect(retriedLines[0]).to.include({ job: 'create', vm: 'end-1', attempts: 3 });
    expect(retriedLines[0]?.reason).to.match(/did not answer/);
    for (const line of retriedLines) expect(line.durationMs, 'duration').to.be.a('number').and.at.least(0);
    expect(retriedLines[1]).to.not.have.property('reason');

    h.provider.createFailures.push(new PermanentError('template 9001 is not a template', { reason: 'TemplateNotFound' }));
    const failed = await h.client.createVm({ name: 'end-2', uid: 'u2' });
    await h.client.waitForJob(failed.jobId, { timeoutMs: 20_000 });
    const [failedLine, ...more] = await eventually(() => Promise.resolve(endsOf(records, failed.jobId).length > 0 ? endsOf(records, failed.jobId) : undefined), 10_000);
    expect(more, 'one line for a job that fails for good').to.deep.equal([]);
    expect(failedLine).to.include({ msg: 'job ended', job: 'create', vm: 'end-2', outcome: 'failed', attempt: 1, level: WARN });
    expect(failedLine?.reason).to.match(/TemplateNotFound|not a template/);

    // Held by someone else: the create waits for the name (no line), then the delete makes it moot.
    const locks = new NameLocks(h.redis, h.prefix);
    const token = (await locks.tryAcquire('end-3', 10_000)) ?? '';
    const moot = await h.client.createVm({ name: 'end-3', uid: 'u3' });
    await eventually(async () => ((await h.queues.vm.getJob(moot.jobId))?.attemptsStarted ?? 0) > 0 || undefined, 10_000);
    expect(endsOf(records, moot.jobId), 'a wait for the name lock is no end').to.deep.equal([]);
    const removal = await h.client.deleteVm({ name: 'end-3' });
    await locks.release('end-3', token);
    await h.client.waitForJob(removal.jobId, { timeoutMs: 20_000 });
    const mootLines = await eventually(() => Promise.resolve(endsOf(records, moot.jobId).length > 0 ? endsOf(records, moot.jobId) : undefined), 10_000);
    expect(mootLines.map((r) => [r.msg, r.outcome, r.level])).to.deep.equal([['job ended', 'superseded', INFO]]);
    expect(endsOf(records, removal.jobId).map((r) => [r.job, r.outcome])).to.deep.equal([['delete', 'completed']]);
  });
});
