// SPEC 9: the worker reports each job's outcome and each lock wait through
// the JobMetrics it is given.
import { expect } from 'chai';
import type { JobMetrics } from '../../src/metrics.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { PermanentError } from '../../src/errors.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { eventually } from '../support/redis.js';

class RecordingMetrics implements JobMetrics {
  readonly outcomes: string[] = [];
  readonly lockWaits: string[] = [];
  jobFinished(job: string, outcome: string): void {
    this.outcomes.push(`${job}:${outcome}`);
  }
  lockWaited(job: string): void {
    this.lockWaits.push(job);
  }
  reconcilerFindings(): void {}
}

describe('job metrics (SPEC 9)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('counts completed, superseded and failed jobs, and lock waits', async () => {
    h = createHarness('metrics', { config: { jobs: { attempts: 1 } }, provider: { createFailures: [new PermanentError('no', { reason: 'refused' })] } });
    const metrics = new RecordingMetrics();
    const locks = new NameLocks(h.redis, h.prefix);
    const token = (await locks.tryAcquire('m-3', 10_000)) ?? '';
    const failed = await h.client.createVm({ name: 'm-1', uid: 'u1' });
    await h.startWorker({ metrics });
    await h.client.waitForJob(failed.jobId, { timeoutMs: 5000 });
    const old = await h.client.createVm({ name: 'm-2', uid: 'u2' });
    await h.client.deleteVm({ name: 'm-2' });
    await h.client.waitForJob(old.jobId, { timeoutMs: 5000 });
    await h.client.createVm({ name: 'm-3', uid: 'u3' });
    await eventually(() => Promise.resolve(metrics.lockWaits.length > 0 ? true : undefined), 5000);
    await locks.release('m-3', token);
    await eventually(() => Promise.resolve(metrics.outcomes.length >= 4 ? true : undefined), 5000);
    expect(metrics.outcomes.sort()).to.deep.equal(['create:completed', 'create:failed', 'create:superseded', 'delete:completed']);
    expect(metrics.lockWaits[0]).to.equal('create');
  });
});
