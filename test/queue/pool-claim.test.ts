// SPEC 30 (issue 32): the claim at the door. A create of a warm pool's
// shape takes the oldest-ready idle member in the accept's one script
// (RECORD_PRESENT), on the real Redis through the producer library: the
// answer says origin pool, the job carries the claim, the records say who
// claimed whom, the member's address lease moves to the claimer. An empty
// pool, pool false and userData go cold; a repeat claims nothing more; a
// conflict claims nothing; a miss adds a refill of the pool; fifty creates
// at once against ten idle members claim each member exactly once.
import { expect } from 'chai';
import { ValidationError } from '../../src/client.js';
import type { EnqueueResult } from '../../src/client.js';
import type { PoolClaim, PoolConfig, PoolMember } from '../../src/pools/types.js';
import { keys } from '../../src/redis-keys.js';
import { createHarness, type Harness } from '../support/harness.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';
import { rejection } from '../support/rejection.js';
import { SpecConflictError } from '../../src/client.js';

const NODES = [
  { name: 'pve1', isoStorage: 'proxy-seeds', bridge: 'vmbr1' },
  { name: 'pve2', isoStorage: 'proxy-seeds', bridge: 'vmbr1' },
];
const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001, pve2: 9002 }, user: 'ubuntu' }];
const LAN = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', gateway: '127.77.0.1' };

function pooled(what: string): { h: Harness; world: PoolWorld; web: PoolConfig } {
  const h = createHarness(what, { config: { proxmox: { nodes: NODES, images: IMAGES, networks: [LAN] }, pools: [{ name: 'web', minIdle: 2 }] } });
  const web = h.config.pools[0];
  if (web === undefined) throw new Error('no pool configured');
  return { h, world: poolWorld(h.redis, h.prefix, h.config), web };
}

async function jobClaim(h: Harness, jobId: string): Promise<PoolClaim | undefined> {
  return ((await h.queues.vm.getJob(jobId))?.data as { claim?: PoolClaim } | undefined)?.claim;
}

async function idleNames(h: Harness, pool = 'web'): Promise<string[]> {
  return h.redis.zrange(keys.poolIdle(h.prefix, pool), 0, -1);
}

describe('the claim at the door (SPEC 30)', function () {
  let h: Harness;
  let world: PoolWorld;
  let web: PoolConfig;
  beforeEach(() => {
    ({ h, world, web } = pooled('claim'));
  });
  afterEach(async () => {
    await world.queues.close();
    await h.close();
  });

  it('a create of the shape takes the oldest-ready idle member: the answer says pool, the job carries the claim, the records say who claimed whom; the next create takes the next', async () => {
    const now = Date.now();
    const later = await world.idleMember(web, 100101, 'pve1', new Date(now - 1000));
    const oldest = await world.idleMember(web, 100102, 'pve2', new Date(now - 5000));
    const first = await h.client.createVm({ name: 'foo', uid: 'u-foo', sshKeys: [] });
    expect(first).to.include({ origin: 'pool', existing: false });
    const claim = await jobClaim(h, first.jobId);
    expect(claim).to.deep.include({ pool: 'web', member: oldest.name, memberUid: oldest.uid, vmid: 100102, node: 'pve2', address: oldest.address });
    expect(Date.parse(claim?.claimedAt ?? '')).to.be.closeTo(Date.now(), 60_000);
    expect(JSON.parse((await h.redis.hget(keys.desired(h.prefix, 'foo'), 'claim')) ?? '{}')).to.deep.equal(claim);
    expect(claim?.generation).to.equal(first.generation);
    expect(await h.redis.hget(keys.desired(h.prefix, oldest.name), 'claimedBy')).to.equal('foo u-foo');
    expect((await world.writers.registry.get('foo'))?.claim, "the registry's record").to.deep.equal(claim);
    expect((await world.writers.registry.get(oldest.name))?.claimedBy).to.equal('foo u-foo');
    expect(await h.client.getVm('foo'), 'the view shows the origin in the answer, not the claim').not.to.have.property('claim');
    expect(await idleNames(h)).to.deep.equal([later.name]);
    const second = await h.client.createVm({ name: 'bar' });
    expect(second.origin).to.equal('pool');
    expect((await jobClaim(h, second.jobId))?.member).to.equal(later.name);
    expect(await idleNames(h)).to.deep.equal([]);
  });

  it("moves the member's address lease to the claimer: the answer, the record and the job carry the member's address, no other is taken", async () => {
    const member = await world.idleMember(web, 100111, 'pve1');
    expect(member.address).to.be.a('string');
    const answer = await h.client.createVm({ name: 'foo', uid: 'u-foo' });
    expect(answer).to.include({ origin: 'pool', address: member.address, addressPool: 'lan' });
    const lease = JSON.parse((await h.redis.hget(keys.addressLeases(h.prefix), 'foo u-foo')) ?? '{}') as { address?: string; uid?: string };
    expect(lease).to.include({ address: member.address, uid: 'u-foo' });
    expect(await h.redis.hget(keys.addressLeases(h.prefix), `${member.name} ${member.uid}`)).to.equal(null);
    expect(await h.redis.hget(keys.addressHeld(h.prefix, 'lan'), member.address ?? '')).to.equal('foo u-foo');
    expect(await h.redis.hlen(keys.addressHeld(h.prefix, 'lan'))).to.equal(1);
    expect((await h.client.getVm('foo'))?.address).to.equal(member.address);
    expect(await h.redis.hget(keys.desired(h.prefix, member.name), 'address')).to.equal(null);
    const job = (await h.queues.vm.getJob(answer.jobId))?.data as { address?: { address: string; uid: string } };
    expect(job.address).to.include({ address: member.address, uid: 'u-foo' });
  });

  it('an empty pool, pool false, userData, another size and a named node (the pool has none) go cold, claiming nothing', async () => {
    const member = await world.idleMember(web, 100121, 'pve1');
    const colds: EnqueueResult[] = [
      await h.client.createVm({ name: 'c-1', pool: false }),
      await h.client.createVm({ name: 'c-2', userData: '#cloud-config\n' }),
      await h.client.createVm({ name: 'c-3', cores: 4 }),
      await h.client.createVm({ name: 'c-4', node: 'pve1' }),
    ];
    expect(colds.map((answer) => answer.origin)).to.deep.equal(['cold', 'cold', 'cold', 'cold']);
    for (const answer of colds) expect(await jobClaim(h, answer.jobId)).to.equal(undefined);
    expect(await idleNames(h)).to.deep.equal([member.name]);
    expect((await h.client.createVm({ name: 'c-5' })).origin).to.equal('pool');
    const empty = await h.client.createVm({ name: 'c-6' });
    expect(empty.origin).to.equal('cold');
    expect(await jobClaim(h, empty.jobId)).to.equal(undefined);
    expect(empty.address, 'a cold create on the pooled network takes its own lease').to.be.a('string').and.not.equal(member.address);
  });

  it('a miss adds a refill of the pool at the accept (its demand raised the target), one waiting for a burst; a claim, a repeat and pool false add none there', async () => {
    const refills = async () => (await h.queues.system.getJobs(['prioritized', 'waiting'])).filter((job) => job.name === 'pool-refill').map((job) => job.data as unknown);
    await world.idleMember(web, 100125, 'pve1');
    expect((await h.client.createVm({ name: 'hit' })).origin).to.equal('pool');
    await h.client.createVm({ name: 'cold', pool: false });
    expect(await refills(), "a claim's refill is its job's to add").to.deep.equal([]);
    expect((await h.client.createVm({ name: 'miss-1' })).origin).to.equal('cold');
    await h.client.createVm({ name: 'miss-1' });
    await h.client.createVm({ name: 'miss-2' });
    expect(await refills()).to.deep.equal([{ pool: 'web' }]);
  });

  it("a repeat of the same create is existing with the same claim and claims nothing more; a conflict claims nothing", async () => {
    const members = [await world.idleMember(web, 100131, 'pve1', new Date(Date.now() - 2000)), await world.idleMember(web, 100132, 'pve1')];
    const first = await h.client.createVm({ name: 'foo', uid: 'u-foo' });
    const again = await h.client.createVm({ name: 'foo', uid: 'u-foo' });
    expect(again).to.include({ existing: true, origin: 'pool', jobId: first.jobId, address: first.address });
    expect(await idleNames(h)).to.deep.equal([members[1]?.name]);
    await h.client.createVm({ name: 'pinned', node: 'pve2', pool: false });
    const conflict = await rejection(h.client.createVm({ name: 'pinned' }));
    expect(conflict).to.be.instanceOf(SpecConflictError);
    expect(await idleNames(h)).to.deep.equal([members[1]?.name]);
    expect(await h.redis.hget(keys.desired(h.prefix, members[1]?.name ?? ''), 'claimedBy')).to.equal(null);
  });

  it("a uid that still holds an address lease (its earlier VM not yet deleted) goes cold, keeping its lease; an in-place change's new generation keeps the claim, so its job renames the member first (one VM on the address)", async () => {
    const member = await world.idleMember(web, 100151, 'pve1');
    const first = await h.client.createVm({ name: 'foo', uid: 'u-foo', pool: false });
    await h.client.deleteVm({ name: 'foo' });
    const again = await h.client.createVm({ name: 'foo', uid: 'u-foo' });
    expect(again).to.include({ origin: 'cold', address: first.address });
    expect(await idleNames(h)).to.deep.equal([member.name]);
    const claimed = await h.client.createVm({ name: 'bar' });
    expect(claimed.origin).to.equal('pool');
    const claim = await jobClaim(h, claimed.jobId);
    const bigger = await h.client.createVm({ name: 'bar', cores: 3 });
    expect(bigger).to.include({ origin: 'pool', address: claimed.address });
    expect(bigger.changes).to.deep.equal(['cores']);
    expect(await jobClaim(h, bigger.jobId), "the new generation's job carries the first one's claim").to.deep.equal(claim);
    expect(claim?.generation).to.equal(claimed.generation);
    expect(await h.redis.hget(keys.desired(h.prefix, 'bar'), 'claim')).to.equal(JSON.stringify(claim));
    expect(await h.redis.hget(keys.desired(h.prefix, claim?.member ?? ''), 'claimedBy'), 'still the same uid: the sweep keeps the member').to.equal(`bar ${claimed.uid}`);
    await h.client.deleteVm({ name: 'bar' });
    const other = await h.client.createVm({ name: 'bar', uid: 'u-bar-2', pool: false });
    expect(await jobClaim(h, other.jobId), 'another uid: no claim of the old one').to.equal(undefined);
  });

  it('a stopped claimed name (SPEC 31) created again drops its claim: its VM ran renamed, and its create starts it the ordinary way', async () => {
    await world.idleMember(web, 100171, 'pve1');
    const claimed = await h.client.createVm({ name: 'baz', uid: 'u-baz' });
    expect(claimed.origin).to.equal('pool');
    // What a lease's expiry with onExpiry stop leaves on the record (the stop's generation).
    await h.redis.hset(keys.desired(h.prefix, 'baz'), 'stopped', String(claimed.generation));
    const again = await h.client.createVm({ name: 'baz', uid: 'u-baz' });
    expect(again).to.include({ existing: false, origin: 'cold' }).and.not.have.property('warmPool');
    expect(await jobClaim(h, again.jobId)).to.equal(undefined);
    expect(await h.redis.hget(keys.desired(h.prefix, 'baz'), 'claim')).to.equal(null);
  });

  it("skips a member of another fingerprint (left for the drain) and a member's own create never claims", async () => {
    const stale: PoolMember = await world.idleMember({ ...web, cores: 1 }, 100141, 'pve1', new Date(Date.now() - 9000));
    const current = await world.idleMember(web, 100142, 'pve1');
    const answer = await h.client.createVm({ name: 'foo' });
    expect((await jobClaim(h, answer.jobId))?.member).to.equal(current.name);
    expect(await idleNames(h)).to.deep.equal([stale.name]);
    const next = await world.idleMember(web, 100143, 'pve2');
    expect(await idleNames(h), "the member's create took none of the idle").to.deep.equal([stale.name, next.name]);
  });

  it("refuses a caller's create of a member's reserved name as a 400 naming name", async () => {
    const err = await rejection(h.client.createVm({ name: 'pvep-pool-web-7' }));
    expect(err).to.be.instanceOf(ValidationError);
    expect((err as ValidationError).fields).to.deep.equal([{ field: 'name', message: `must not start with "pvep-pool-": that prefix names the warm pools' VMs (SPEC 30)` }]);
    expect(await h.redis.exists(keys.desired(h.prefix, 'pvep-pool-web-7'))).to.equal(0);
  });

  it("refuses a caller's delete and lease renewal of a member's name as a 400 naming name, changing nothing", async () => {
    const member = await world.idleMember(web, 100161, 'pve1');
    for (const attempt of [h.client.deleteVm({ name: member.name }), h.client.deleteVm({ name: member.name, uid: member.uid }), h.client.renewLease(member.name, { ttlSeconds: 600 })]) {
      const err = await rejection(attempt);
      expect(err).to.be.instanceOf(ValidationError);
      expect((err as ValidationError).fields.map((f) => f.field)).to.deep.equal(['name']);
    }
    expect((await world.writers.registry.get(member.name))?.state).to.equal('present');
    expect(await idleNames(h)).to.deep.equal([member.name]);
  });

  it('fifty creates at once against ten idle members claim each member exactly once', async function () {
    this.timeout(30_000);
    const members: PoolMember[] = [];
    for (let i = 0; i < 10; i++) members.push(await world.idleMember(web, 100200 + i, i % 2 === 0 ? 'pve1' : 'pve2', new Date(Date.now() - 10_000 + i)));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => h.client.createVm({ name: `many-${i}` })));
    const claims = await Promise.all(answers.filter((a) => a.origin === 'pool').map((a) => jobClaim(h, a.jobId)));
    expect(claims).to.have.length(10);
    expect(new Set(claims.map((c) => c?.member)).size).to.equal(10);
    expect(claims.map((c) => c?.member).sort()).to.deep.equal(members.map((m) => m.name).sort());
    expect(answers.filter((a) => a.origin === 'cold')).to.have.length(40);
    expect(await idleNames(h)).to.deep.equal([]);
    const claimedBy = await Promise.all(members.map((m) => h.redis.hget(keys.desired(h.prefix, m.name), 'claimedBy')));
    const claimers = claimedBy.map((by) => by?.split(' ')[0]);
    expect(new Set(claimers).size).to.equal(10);
    const addresses = answers.map((a) => a.address);
    expect(new Set(addresses).size, 'no address twice').to.equal(50);
  });
});
