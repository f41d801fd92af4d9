// SPEC 2: a create that failed Permanent is recorded on the name with its
// reason, and the reconciler does not re-create it until a new create
// arrives; the sweep's report lists it. A Transient failure that ran out
// of attempts is not recorded, so the sweep still heals it (SPEC 5). Real
// Redis, real worker, the recording provider.
import { expect } from 'chai';
import { ownJobId } from '../../src/job-table/job-ids.js';
import { PermanentError } from '../../src/errors.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import type { SweepReport } from '../../src/reconciler/report.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const REASON = 'template 9001 has a cloud-init drive: remove it';

async function sweepOnce(h: Harness): Promise<SweepReport> {
  // An id of the service's own shape: getJob and waitForJob read no other.
  const job = await h.queues.system.add('reconcile', { dryRun: false }, { jobId: ownJobId('reconcile') });
  const view = await h.client.waitForJob(job.id ?? '', { timeoutMs: 10_000 });
  expect(view.state, view.failedReason).to.equal('completed');
  return view.result as SweepReport;
}

async function createJobsIn(h: Harness): Promise<number> {
  const jobs = await h.queues.vm.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
  return jobs.filter((job) => job.name === 'create').length;
}

describe('a create that failed Permanent is not re-created by the sweep (SPEC 2, SPEC 5)', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.close());

  it('records the failure on the name; sweeps re-enqueue nothing and list it; a new create clears it and runs again', async () => {
    h = createHarness('perm', { config: { reconciler: { graceSeconds: 0 } }, provider: { createFailures: [new PermanentError('bad template', { reason: REASON })] } });
    await h.startWorker();
    const first = await h.client.createVm({ name: 'perm-1', uid: 'u1' });
    expect((await h.client.waitForJob(first.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');

    const failed = (await h.client.getVm('perm-1'))?.failed;
    expect(failed).to.include({ jobId: first.jobId, generation: 1 });
    expect(failed?.reason).to.include(REASON);

    for (const round of [1, 2]) {
      const report = await sweepOnce(h);
      expect(report.missing.reenqueued, `sweep ${round}`).to.deep.equal([]);
      expect(report.errors, `sweep ${round}`).to.deep.equal([]);
      expect(report.missing.failedPermanent.map((m) => [m.name, m.failedJobId]), `sweep ${round}`).to.deep.equal([['perm-1', first.jobId]]);
      expect(report.missing.failedPermanent[0]?.reason).to.include(REASON);
    }
    expect(await createJobsIn(h), 'create jobs after two sweeps').to.equal(1);
    expect((await h.provider.calls()).filter((c) => c.op === 'create')).to.have.length(1);

    // The caller asks again: the same job runs again, and the failure is gone from the name.
    const again = await h.client.createVm({ name: 'perm-1' });
    expect(again).to.include({ jobId: first.jobId, existing: true, uid: 'u1' });
    expect((await h.client.getVm('perm-1'))?.failed).to.equal(undefined);
    expect((await h.client.waitForJob(again.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    const after = await sweepOnce(h);
    expect([after.missing.reenqueued, after.missing.failedPermanent]).to.deep.equal([[], []]);
  });

  it('a Transient failure out of attempts is not recorded, so the sweep enqueues its create again', async () => {
    h = createHarness('transient', { config: { reconciler: { graceSeconds: 0 }, jobs: { attempts: 1 } }, provider: { createFailures: [new Error('socket hang up')] } });
    await h.startWorker();
    const first = await h.client.createVm({ name: 'flaky-1', uid: 'u1' });
    expect((await h.client.waitForJob(first.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    expect((await h.client.getVm('flaky-1'))?.failed).to.equal(undefined);
    const report = await sweepOnce(h);
    expect(report.missing.reenqueued.map((m) => m.name)).to.deep.equal(['flaky-1']);
  });

  it('a newer intent for the name is not marked by an older create\'s failure', async () => {
    h = createHarness('perm-old');
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await h.client.createVm({ name: 'perm-2', uid: 'u1' });
    await h.client.deleteVm({ name: 'perm-2' });
    await h.client.createVm({ name: 'perm-2', uid: 'u2' });
    expect(await registry.recordFailure('perm-2', { reason: 'old', jobId: 'create-perm-2-1', generation: 1, at: new Date().toISOString() })).to.equal(false);
    expect(await registry.recordFailure('perm-2', { reason: 'now', jobId: 'create-perm-2-3', generation: 3, at: new Date().toISOString() })).to.equal(true);
    expect((await h.client.getVm('perm-2'))?.failed?.reason).to.equal('now');
  });
});
