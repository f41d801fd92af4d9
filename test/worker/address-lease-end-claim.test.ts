// SPEC 29, 30 (issue 32, review item 2): a claimer that goes before its
// create renamed the member must not free the address while the member's
// VM still runs on it. The claim moved the member's address lease to the
// claimer at the door; a delete of the claimer (its create superseded,
// never run) or a create of it that failed Permanent before the rename
// deletes the member's VM, still under the member's name and mark, and
// forgets the member, before the address is released. A real worker on
// the real Redis with the recording provider (its VMs live in Redis).
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import type { PoolConfig, PoolMember } from '../../src/pools/types.js';
import { keys } from '../../src/redis-keys.js';
import { configuredPoolWiring } from '../../src/worker/pool-wiring.js';
import { createHarness, type Harness } from '../support/harness.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';

const NODES = [{ name: 'pve1', isoStorage: 'proxy-seeds', bridge: 'vmbr1' }];
const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001 }, user: 'ubuntu' }];
const LAN = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', gateway: '127.77.0.1' };

interface Claimed {
  member: PoolMember;
  address: string;
  createJobId: string;
}

describe("a claimer gone before the rename ends the member's VM before its address (SPEC 29, 30)", function () {
  this.timeout(30_000);
  let h: Harness;
  let world: PoolWorld;
  let web: PoolConfig;

  beforeEach(() => {
    h = createHarness('claim-end', { config: { proxmox: { nodes: NODES, images: IMAGES, networks: [LAN] }, pools: [{ name: 'web', minIdle: 1 }] } });
    const pool = h.config.pools[0];
    if (pool === undefined) throw new Error('no pool configured');
    web = pool;
    world = poolWorld(h.redis, h.prefix, h.config);
  });
  afterEach(async () => {
    await world.queues.close();
    await h.close();
  });

  /** An idle member whose VM runs (the recording provider's double), claimed by foo at the door; no worker has run. */
  async function claimedByFoo(): Promise<Claimed> {
    const member = await world.idleMember(web, 100101, 'pve1');
    // Its own create is done (the VM below); only the claimer's jobs are under test.
    for (const job of await h.queues.vm.getJobs(['prioritized', 'waiting'])) await job.remove();
    await h.redis.hset(`${h.prefix}:double:vm:${member.name}`, { uid: member.uid, vmid: 100101, steps: 'cloned,seeded,configured,started,running' });
    const created = await h.client.createVm({ name: 'foo', uid: 'u-foo', sshKeys: [] });
    expect(created).to.include({ origin: 'pool', address: member.address });
    expect(await h.redis.hget(keys.addressHeld(h.prefix, 'lan'), member.address ?? '')).to.equal('foo u-foo');
    return { member, address: member.address ?? '', createJobId: created.jobId };
  }

  async function expectMemberEnded(member: PoolMember): Promise<void> {
    expect(await h.provider.vm(member.name), "the member's VM").to.equal(undefined);
    expect(await h.redis.exists(keys.desired(h.prefix, member.name)), "the member's record").to.equal(0);
    expect(await h.redis.hexists(keys.poolMembers(h.prefix, 'web'), member.name), "the member's entry").to.equal(0);
  }

  it('a delete of the claimer whose create never ran deletes the member VM, then frees the address', async () => {
    const { member, address } = await claimedByFoo();
    const deleted = await h.client.deleteVm({ name: 'foo' });
    await h.startWorker();
    expect((await h.client.waitForJob(deleted.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    await expectMemberEnded(member);
    expect(await h.redis.hget(keys.addressHeld(h.prefix, 'lan'), address), 'the address, freed').to.equal(null);
    const log = (await h.queues.vm.getJobLogs(deleted.jobId)).logs;
    const memberGone = log.findIndex((line) => line.startsWith(`claimed member ${member.name}`));
    const released = log.findIndex((line) => line.startsWith(`released address ${address}`));
    expect(memberGone, log.join('\n')).to.be.greaterThan(-1);
    expect(released, 'the address goes after the VM').to.be.greaterThan(memberGone);
    expect((await h.provider.calls()).map((call) => call.op)).to.not.include('claim');
  });

  it('a claimer whose create failed Permanent before the rename deletes the member VM, then frees the address', async () => {
    const wiring = { ...configuredPoolWiring(h.config, h.provider), claimVm: () => Promise.reject(new PermanentError('agent file-write refused')) };
    const { member, address, createJobId } = await claimedByFoo();
    await h.startWorker({ pools: wiring });
    expect((await h.client.waitForJob(createJobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    await expectMemberEnded(member);
    expect(await h.redis.hget(keys.addressHeld(h.prefix, 'lan'), address), 'the address, freed').to.equal(null);
  });

  it("a claimer whose create renamed the member keeps the address: the VM is the claimer's, deleted as its own", async () => {
    const { address, createJobId } = await claimedByFoo();
    await h.startWorker();
    expect((await h.client.waitForJob(createJobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(await h.provider.vm('foo')).to.include({ uid: 'u-foo', vmid: 100101 });
    expect(await h.redis.hget(keys.addressHeld(h.prefix, 'lan'), address)).to.equal('foo u-foo');
    const deleted = await h.client.deleteVm({ name: 'foo' });
    expect((await h.client.waitForJob(deleted.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(await h.provider.vm('foo')).to.equal(undefined);
    expect(await h.redis.hget(keys.addressHeld(h.prefix, 'lan'), address)).to.equal(null);
    // The member was forgotten at the rename: no delete of its name is even tried.
    expect((await h.provider.calls()).filter((call) => call.op === 'delete').map((call) => call.name)).to.deep.equal(['foo']);
  });
});
