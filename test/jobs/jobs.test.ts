// The check, health and reconcile jobs run by the worker (SPEC 1, 3, 5, 19).
import { expect } from 'chai';
import { ownJobId } from '../../src/job-table/job-ids.js';
import { readLastHealth } from '../../src/queue/health-store.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { eventually } from '../support/redis.js';

describe('check, health and reconcile jobs', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('check reports Provisioning while a job holds the name, then what the provider sees (SPEC 3)', async () => {
    h = createHarness('check');
    const locks = new NameLocks(h.redis, h.prefix);
    const token = await locks.tryAcquire('chk-1', 10_000);
    await h.startWorker();
    const during = await h.client.waitForJob((await h.client.checkVm({ name: 'chk-1' })).jobId, { timeoutMs: 5000 });
    expect(during.result).to.deep.equal({ state: 'Provisioning' });
    expect(await locks.release('chk-1', token ?? '')).to.equal(true);

    const unknown = await h.client.waitForJob((await h.client.checkVm({ name: 'chk-1' })).jobId, { timeoutMs: 5000 });
    expect(unknown.result).to.deep.equal({ state: 'NotFound' });

    const made = await h.client.createVm({ name: 'chk-1', uid: 'u1' });
    await h.client.waitForJob(made.jobId, { timeoutMs: 5000 });
    const after = await h.client.waitForJob((await h.client.checkVm({ name: 'chk-1' })).jobId, { timeoutMs: 5000 });
    expect(after.result).to.deep.include({ state: 'Running', address: '192.0.2.10' });
    expect((await h.client.getVm('chk-1'))?.lastKnown).to.include({ state: 'Running', address: '192.0.2.10' });
  });

  it('health stores its result for /readyz (SPEC 19)', async () => {
    h = createHarness('health');
    await h.startWorker();
    const job = await h.queues.system.add('health', {}, { jobId: ownJobId('health') });
    const view = await h.client.waitForJob(job.id ?? '', { timeoutMs: 5000 });
    expect(view.result).to.deep.equal({ ok: true, nodes: [{ node: 'pve1', ok: true, reasons: [] }] });
    expect((await readLastHealth(h.redis, h.prefix))?.nodes).to.deep.equal([{ node: 'pve1', ok: true, reasons: [] }]);
  });

  it('reconcile runs the sweep: a present name with no VM and no job gets its create again (SPEC 5)', async () => {
    h = createHarness('reconcile', { config: { reconciler: { graceSeconds: 0 } } });
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await registry.recordPresent('lost-1', 'u1', { name: 'lost-1', uid: 'u1', cores: 1, memoryMiB: 512, diskGiB: 4, waitForAddress: false });
    await h.startWorker();
    const job = await h.queues.system.add('reconcile', { dryRun: false }, { jobId: ownJobId('reconcile') });
    const view = await h.client.waitForJob(job.id ?? '', { timeoutMs: 10_000 });
    expect(view).to.include({ job: 'reconcile', state: 'completed' });
    const reenqueued = (view.result as { missing: { reenqueued: { name: string }[] } }).missing.reenqueued;
    expect(reenqueued.map((m) => m.name)).to.deep.equal(['lost-1']);
    expect(await eventually(() => h.provider.vm('lost-1'))).to.include({ uid: 'u1' });
  });
});
