// SPEC 34 (issue 33): "a hold ends when the VM of that name and uid is
// gone": a delete job that removed the VM (or found it gone) ends its
// uid's hold and the tenant's sums go down; a create that failed Permanent
// and left nothing ends its hold, one that left a VM keeps it. A real
// worker on the real Redis with the recording provider; a create's hold is
// the one the accept's script took (the client's default tenant).
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { TenantHoldStore } from '../../src/tenants/hold-store.js';
import { tenantHoldDeps } from '../../src/worker/tenant-hold-deps.js';
import { holdJson, putHold, testHold } from '../support/tenant-holds.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const NOTHING = { vms: 0, cores: 0, memoryMiB: 0, diskGiB: 0 };

async function jobLog(h: Harness, jobId: string): Promise<string[]> {
  return (await h.queues.vm.getJobLogs(jobId)).logs;
}

describe("a VM gone ends its tenant's quota hold (SPEC 34)", function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.close());

  it("a delete that removed the VM ends the hold, and the tenant's usage goes down", async () => {
    h = createHarness('hold-delete');
    const usage = new TenantHoldStore(h.redis, h.prefix);
    await putHold(h.redis, h.prefix, 'web-9', 'u9', testHold('acme', { cores: 1 }));
    await h.startWorker();
    const created = await h.client.createVm({ name: 'web-1', uid: 'u1' });
    expect((await h.client.waitForJob(created.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(await holdJson(h.redis, h.prefix, 'web-1', 'u1'), 'a create keeps its hold').to.not.equal(null);

    const deleted = await h.client.deleteVm({ name: 'web-1' });
    expect((await h.client.waitForJob(deleted.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(await holdJson(h.redis, h.prefix, 'web-1', 'u1')).to.equal(null);
    expect(await usage.usage('acme'), "web-9's hold is all that is left").to.deep.equal({ vms: 1, cores: 1, memoryMiB: 2048, diskGiB: 20 });
    expect(await jobLog(h, deleted.jobId)).to.include('released tenant hold of web-1 uid u1 (tenant default: 1 VM, 2 cores, 2048 MiB, 10 GiB)');
  });

  it('a delete that found no VM (NotFound is success) ends the hold too', async () => {
    h = createHarness('hold-delete-gone');
    // Recorded and deleted before any worker ran: the create is superseded, the delete finds nothing.
    await h.client.createVm({ name: 'web-2', uid: 'u1' });
    const deleted = await h.client.deleteVm({ name: 'web-2' });
    await h.startWorker();
    expect((await h.client.waitForJob(deleted.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(await holdJson(h.redis, h.prefix, 'web-2', 'u1')).to.equal(null);
    expect(await new TenantHoldStore(h.redis, h.prefix).usage('default')).to.deep.equal(NOTHING);
  });

  it('a create that failed Permanent and left no VM ends its hold, the failure still on the name', async () => {
    h = createHarness('hold-failed', { provider: { createFailures: [new PermanentError('bad template')] } });
    await h.startWorker();
    const created = await h.client.createVm({ name: 'web-3', uid: 'u1' });
    expect((await h.client.waitForJob(created.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    expect(await holdJson(h.redis, h.prefix, 'web-3', 'u1')).to.equal(null);
    expect(await new TenantHoldStore(h.redis, h.prefix).usage('default')).to.deep.equal(NOTHING);
    expect((await h.client.getVm('web-3'))?.failed, 'the failure is still on the name').to.include({ jobId: created.jobId });
  });

  it('a create that failed Permanent but left a VM keeps its hold, and says why', async () => {
    h = createHarness('hold-failed-left', { provider: { createFailures: [new PermanentError('hibernated')] } });
    // An earlier attempt's VM of this name and uid.
    await h.redis.hset(`${h.prefix}:double:vm:web-4`, { uid: 'u1', vmid: 9 });
    await h.startWorker();
    const created = await h.client.createVm({ name: 'web-4', uid: 'u1' });
    expect((await h.client.waitForJob(created.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    expect(await holdJson(h.redis, h.prefix, 'web-4', 'u1')).to.not.equal(null);
    expect((await new TenantHoldStore(h.redis, h.prefix).usage('default')).vms).to.equal(1);
    expect(await jobLog(h, created.jobId)).to.include('tenant hold of web-4 uid u1 (tenant default: 1 VM, 2 cores, 2048 MiB, 10 GiB) kept: VM 9 of web-4 is left (Running)');
  });
});

describe('a delete without a uid ends the holds of every uid its name had (SPEC 34)', () => {
  let h: Harness;
  afterEach(() => h.close());

  it("ends the retired uids' holds and the tombstone's, never the uid the name is present with again", async () => {
    h = createHarness('hold-uids');
    const holds = tenantHoldDeps(new TenantHoldStore(h.redis, h.prefix), new DesiredStateRegistry(h.redis, h.prefix, 60));
    for (const uid of ['u0', 'u1', 'u2']) await putHold(h.redis, h.prefix, 'app-1', uid, testHold('acme'));
    await putHold(h.redis, h.prefix, 'other-1', 'u0', testHold('acme'));
    await h.redis.hset(keys.desired(h.prefix, 'app-1'), { state: 'absent', uid: 'u1', generation: 4, retiredUids: JSON.stringify(['u0']) });
    expect((await holds.vmGone('app-1')).map((one) => one.uid).sort()).to.deep.equal(['u0', 'u1']);
    expect(await holdJson(h.redis, h.prefix, 'app-1', 'u2'), 'a uid the record never had').to.not.equal(null);
    expect(await holdJson(h.redis, h.prefix, 'other-1', 'u0'), "another name's").to.not.equal(null);

    // Present again with u2 (a create after the delete's accept): its hold stays.
    await h.redis.hset(keys.desired(h.prefix, 'app-1'), { state: 'present', uid: 'u2', retiredUids: JSON.stringify(['u0', 'u1']) });
    expect(await holds.vmGone('app-1')).to.deep.equal([]);
    expect(await holdJson(h.redis, h.prefix, 'app-1', 'u2')).to.not.equal(null);
  });
});
