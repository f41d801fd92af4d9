// SPEC 29 (issue 31): "a lease ends when its VM is gone": a delete job
// that removed the VM (or found it gone) ends its uid's address lease, and
// the address rests its pool's cooldown; a create that failed Permanent
// and left nothing ends its lease, one that left a VM keeps it. A real
// worker on the real Redis with the recording provider; the leases are
// written in the pools' shared layout as the door leaves them.
import { expect } from 'chai';
import { AddressPoolStore } from '../../src/addresses/address-pool-store.js';
import { PermanentError } from '../../src/errors.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { addressLeaseDeps } from '../../src/worker/address-deps.js';
import { leaseState, putLease, testPool } from '../support/address-leases.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

const POOL = testPool({ reuseCooldownSeconds: 120 });
const NETWORKS = { proxmox: { networks: [POOL] } };

function held(name: string, uid: string, address: string): { name: string; uid: string; pool: string; address: string } {
  return { name, uid, pool: POOL.name, address };
}

async function jobLog(h: Harness, jobId: string): Promise<string[]> {
  return (await h.queues.vm.getJobLogs(jobId)).logs;
}

describe('a VM gone ends its address lease (SPEC 29)', function () {
  this.timeout(30_000);
  let h: Harness;
  afterEach(() => h.close());

  it('a delete that removed the VM ends the lease, and the address rests the pool\'s cooldown', async () => {
    h = createHarness('addr-delete', { config: NETWORKS });
    const web = held('web-1', 'u1', '127.77.0.20');
    await putLease(h.redis, h.prefix, web);
    await h.startWorker();
    const created = await h.client.createVm({ name: 'web-1', uid: 'u1' });
    expect((await h.client.waitForJob(created.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect((await leaseState(h.redis, h.prefix, web)).holder, 'a create keeps its lease').to.equal('web-1 u1');

    const before = Date.now();
    const deleted = await h.client.deleteVm({ name: 'web-1' });
    expect((await h.client.waitForJob(deleted.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    const state = await leaseState(h.redis, h.prefix, web);
    expect(state).to.include({ lease: null, holder: null });
    // Redis's clock and this one are the same machine's.
    expect(state.coolingUntil).to.be.within(before + 120_000 - 1_000, Date.now() + 120_000 + 1_000);
    expect((await jobLog(h, deleted.jobId)).some((line) => line.startsWith('released address 127.77.0.20 (pool lab) of web-1 uid u1'))).to.equal(true);
  });

  it('a delete that found no VM (NotFound is success) ends the lease too', async () => {
    h = createHarness('addr-delete-gone', { config: NETWORKS });
    const web = held('web-2', 'u1', '127.77.0.21');
    await putLease(h.redis, h.prefix, web);
    // Recorded and deleted before any worker ran: the create is superseded, the delete finds nothing.
    await h.client.createVm({ name: 'web-2', uid: 'u1' });
    const deleted = await h.client.deleteVm({ name: 'web-2' });
    await h.startWorker();
    expect((await h.client.waitForJob(deleted.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(await leaseState(h.redis, h.prefix, web)).to.include({ lease: null, holder: null });
  });

  it("an orphan's delete (its uid given) ends that uid's lease and keeps the one of the uid the name is present with", async () => {
    h = createHarness('addr-orphan', { config: NETWORKS });
    const orphan = held('db-1', 'u-old', '127.77.0.30');
    const present = held('db-1', 'u-new', '127.77.0.31');
    await putLease(h.redis, h.prefix, orphan);
    await putLease(h.redis, h.prefix, present);
    // The old uid's VM is there; the name is desired with the new uid, whose create has not run.
    await h.redis.hset(`${h.prefix}:double:vm:db-1`, { uid: 'u-old', vmid: 7 });
    await new DesiredStateRegistry(h.redis, h.prefix, 60).recordPresent('db-1', 'u-new', { name: 'db-1', uid: 'u-new' });
    const deleted = await h.client.deleteVm({ name: 'db-1', uid: 'u-old' });
    await h.startWorker();
    expect((await h.client.waitForJob(deleted.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(await leaseState(h.redis, h.prefix, orphan)).to.include({ lease: null, holder: null });
    expect((await leaseState(h.redis, h.prefix, present)).holder).to.equal('db-1 u-new');
  });

  it('a create that failed Permanent and left no VM ends its lease', async () => {
    h = createHarness('addr-failed', { config: NETWORKS, provider: { createFailures: [new PermanentError('bad template')] } });
    const web = held('web-3', 'u1', '127.77.0.40');
    await putLease(h.redis, h.prefix, web);
    await h.startWorker();
    const created = await h.client.createVm({ name: 'web-3', uid: 'u1' });
    expect((await h.client.waitForJob(created.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    const state = await leaseState(h.redis, h.prefix, web);
    expect(state).to.include({ lease: null, holder: null });
    expect(state.coolingUntil).to.be.a('number');
    expect((await h.client.getVm('web-3'))?.failed, 'the failure is still on the name').to.include({ jobId: created.jobId });
  });

  it('the same create asked again after such a failure takes an address again, and its retried job carries it', async () => {
    const nodes = [{ name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: POOL.bridge }];
    const pool = testPool({ first: '127.77.0.10', last: '127.77.0.11', gateway: '127.77.0.1' });
    h = createHarness('addr-failed-again', { config: { proxmox: { nodes, networks: [pool] } }, provider: { createFailures: [new PermanentError('bad template')] } });
    await h.startWorker();
    const created = await h.client.createVm({ name: 'web-5', uid: 'u1' });
    expect(created.address).to.equal('127.77.0.10');
    expect((await h.client.waitForJob(created.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    expect((await h.client.getVm('web-5'))?.address, 'given back with the failure').to.equal(undefined);
    const again = await h.client.createVm({ name: 'web-5', uid: 'u1' });
    // .10 rests its cooldown: the next one.
    expect(again).to.include({ existing: true, jobId: created.jobId, address: '127.77.0.11' });
    const view = await h.client.waitForJob(again.jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
    expect((view.data as { address?: { address?: string } }).address?.address, "the retried job's data").to.equal('127.77.0.11');
    expect(await h.redis.hget(keys.addressHeld(h.prefix, pool.name), '127.77.0.11')).to.equal('web-5 u1');
  });

  it('a create that failed Permanent but left a VM keeps its lease, and says why', async () => {
    h = createHarness('addr-failed-left', { config: NETWORKS, provider: { createFailures: [new PermanentError('hibernated')] } });
    const web = held('web-4', 'u1', '127.77.0.41');
    await putLease(h.redis, h.prefix, web);
    // An earlier attempt's VM of this name and uid.
    await h.redis.hset(`${h.prefix}:double:vm:web-4`, { uid: 'u1', vmid: 9 });
    await h.startWorker();
    const created = await h.client.createVm({ name: 'web-4', uid: 'u1' });
    expect((await h.client.waitForJob(created.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    expect((await leaseState(h.redis, h.prefix, web)).holder).to.equal('web-4 u1');
    expect(await jobLog(h, created.jobId)).to.include('address 127.77.0.41 (pool lab) kept: VM 9 of web-4 is left (Running)');
  });
});

describe("a delete without a uid ends the leases of every uid its name had (SPEC 29)", () => {
  let h: Harness;
  afterEach(() => h.close());

  it("ends the retired uids' leases and the tombstone's, never the uid the name is present with again", async () => {
    h = createHarness('addr-uids', { config: NETWORKS });
    const addresses = addressLeaseDeps(new AddressPoolStore(h.redis, h.prefix, [POOL]), new DesiredStateRegistry(h.redis, h.prefix, 60));
    const leases = [held('app-1', 'u0', '127.77.0.50'), held('app-1', 'u1', '127.77.0.51'), held('app-1', 'u2', '127.77.0.52'), held('other-1', 'u0', '127.77.0.53')];
    for (const lease of leases) await putLease(h.redis, h.prefix, lease);
    await h.redis.hset(keys.desired(h.prefix, 'app-1'), { state: 'absent', uid: 'u1', generation: 4, retiredUids: JSON.stringify(['u0']) });
    expect((await addresses.vmGone('app-1')).map((one) => one.address).sort()).to.deep.equal(['127.77.0.50', '127.77.0.51']);
    expect((await leaseState(h.redis, h.prefix, held('app-1', 'u2', '127.77.0.52'))).holder, 'a uid the record never had').to.equal('app-1 u2');
    expect((await leaseState(h.redis, h.prefix, held('other-1', 'u0', '127.77.0.53'))).holder, "another name's").to.equal('other-1 u0');

    // Present again with u2 (a create after the delete's accept): its lease stays.
    await h.redis.hset(keys.desired(h.prefix, 'app-1'), { state: 'present', uid: 'u2', retiredUids: JSON.stringify(['u0', 'u1']) });
    expect(await addresses.vmGone('app-1')).to.deep.equal([]);
    expect((await leaseState(h.redis, h.prefix, held('app-1', 'u2', '127.77.0.52'))).holder).to.equal('app-1 u2');
  });
});
