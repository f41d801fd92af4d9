// SPEC 30 (issue 32): the warm pools' Redis state (src/pools/pool-store.ts)
// on the real Redis. Members are numbered from the pool's counter; one is
// idle only while its record is present with its uid, unclaimed and of
// the current shape; a drain and a claim never both take one (whoever
// removes it from the idle set owns it); a claimed member the claim
// renamed is forgotten with its record, no tombstone and no delete job;
// the demand the refill's target is made of: every tried claim and each
// member's lead time.
import { expect } from 'chai';
import { shapeFingerprint } from '../../src/pools/fingerprint.js';
import { acceptMemberCreate } from '../../src/pools/member-create.js';
import { refillPool } from '../../src/pools/refill.js';
import type { PoolConfig } from '../../src/pools/types.js';
import { keys } from '../../src/redis-keys.js';
import { createHarness, type Harness } from '../support/harness.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';
import { rejection } from '../support/rejection.js';

const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001, pve2: 9002 }, user: 'ubuntu' }];
const NODES = [
  { name: 'pve1', isoStorage: 'proxy-seeds' },
  { name: 'pve2', isoStorage: 'proxy-seeds' },
];

describe('the warm pools\' store (SPEC 30)', function () {
  let h: Harness;
  let world: PoolWorld;
  let web: PoolConfig;
  beforeEach(() => {
    h = createHarness('pool-store', { config: { proxmox: { nodes: NODES, images: IMAGES }, pools: [{ name: 'web', minIdle: 2 }] } });
    world = poolWorld(h.redis, h.prefix, h.config);
    web = h.config.pools[0] as PoolConfig;
  });
  afterEach(async () => {
    await world.queues.close();
    await h.close();
  });

  it("numbers members from the pool's counter and lists them, and the pool, until they go", async () => {
    const now = new Date('2030-01-02T03:04:05.000Z');
    const first = await world.store.addMember(web, shapeFingerprint(web), 'u-1', now);
    const second = await world.store.addMember(web, shapeFingerprint(web), 'u-2', now);
    expect(first).to.deep.equal({ pool: 'web', name: 'pvep-pool-web-1', uid: 'u-1', fingerprint: shapeFingerprint(web), createdAt: now.toISOString() });
    expect(second.name).to.equal('pvep-pool-web-2');
    expect(await world.store.poolsWithMembers()).to.deep.equal(['web']);
    expect((await world.store.members('web')).map((m) => [m.name, m.idle])).to.deep.equal([
      ['pvep-pool-web-1', false],
      ['pvep-pool-web-2', false],
    ]);
    await world.store.removeMember('web', first.name);
    await world.store.removeMember('web', second.name);
    expect(await world.store.members('web')).to.deep.equal([]);
    expect(await world.store.poolsWithMembers()).to.deep.equal([]);
    expect((await world.store.addMember(web, shapeFingerprint(web), 'u-3', now)).name, 'a number is never used twice').to.equal('pvep-pool-web-3');
  });

  it('marks a member idle only while its record is present with its uid, unclaimed, and its shape current; a rerun keeps its first readyAt', async () => {
    const print = shapeFingerprint(web);
    const unrecorded = await world.store.addMember(web, print, 'u-x', new Date());
    expect(await world.store.markIdle({ ...unrecorded, vmid: 100100, node: 'pve1' }, print), 'no record').to.equal('unusable');
    const member = await world.idleMember(web, 100101, 'pve1', new Date(Date.now() - 60_000));
    const score = await h.redis.zscore(keys.poolIdle(h.prefix, 'web'), member.name);
    expect(await world.store.markIdle({ ...member, readyAt: new Date().toISOString() }, print)).to.equal('idle');
    expect(await h.redis.zscore(keys.poolIdle(h.prefix, 'web'), member.name)).to.equal(score);
    expect(await world.store.markIdle({ ...member, uid: 'u-other' }, print), 'another uid').to.equal('unusable');
    const stale = await world.store.addMember(web, 'v1 image=old', 'u-s', new Date());
    expect(await world.store.markIdle({ ...stale, vmid: 100102, node: 'pve1' }, print), 'a changed shape').to.equal('unusable');
    expect(await rejection(world.store.markIdle(stale, print))).to.match(/has no vmid or node yet/);
    await h.client.createVm({ name: 'foo', uid: 'u-foo' });
    expect(await world.store.markIdle(member, print), 'claimed: the claimer\'s, not to be drained').to.equal('handed-over');
    expect(await world.store.handedOver(member)).to.equal('claimed');
    const listed = await world.store.members('web');
    expect(listed.find((m) => m.name === member.name)).to.deep.include({ idle: false, claimedBy: 'foo u-foo', vmid: 100101, node: 'pve1' });
    expect(await h.redis.zcard(keys.poolIdle(h.prefix, 'web'))).to.equal(0);
  });

  it('takes a member still creating for a drain: never idle after, never claimable; a claimed one is not taken', async () => {
    const print = shapeFingerprint(web);
    const stuck = await world.idleMember(web, 100131, 'pve1');
    await h.redis.zrem(keys.poolIdle(h.prefix, 'web'), stuck.name);
    await h.redis.hset(keys.poolMembers(h.prefix, 'web'), stuck.name, JSON.stringify({ pool: 'web', name: stuck.name, uid: stuck.uid, fingerprint: print, createdAt: stuck.createdAt }));
    expect(await world.store.takeForDrain('web', stuck.name, new Date('2030-01-01T00:00:00Z'))).to.equal(true);
    expect(await world.store.takeForDrain('web', stuck.name), 'taken once').to.equal(false);
    expect((await world.store.members('web')).find((m) => m.name === stuck.name)).to.include({ idle: false, drainingSince: '2030-01-01T00:00:00.000Z' });
    const { readyAt: _readyAt, ...creating } = stuck;
    expect(await world.store.markIdle(creating, print), 'its create ending late').to.equal('unusable');
    expect((await h.client.createVm({ name: 'late' })).origin).to.equal('cold');
    const claimed = await world.idleMember(web, 100132, 'pve1');
    await h.client.createVm({ name: 'claimer' });
    expect(await world.store.takeForDrain('web', claimed.name), 'claimed').to.equal(false);
  });

  it("lists an idle member whose record went without a drain as unrecorded, and the refill drains it: the pool is short no longer", async () => {
    const kept = await world.idleMember(web, 100141, 'pve1');
    const vanished = await world.idleMember(web, 100142, 'pve1');
    await world.writers.registry.recordAbsent(vanished.name, vanished.uid);
    const listed = await world.store.members('web');
    expect(listed.find((m) => m.name === vanished.name)).to.include({ idle: true, unrecorded: true });
    expect(listed.find((m) => m.name === kept.name)).to.not.have.property('unrecorded');
    const outcome = await refillPool({ store: world.store, writers: world.writers, fingerprint: shapeFingerprint }, 'web', { ...web, minIdle: 2, maxIdle: 2 });
    expect(outcome.drained).to.deep.equal([{ name: vanished.name, reason: 'unrecorded' }]);
    expect(outcome.created).to.have.length(1);
    expect(await h.redis.zrange(keys.poolIdle(h.prefix, 'web'), 0, -1)).to.deep.equal([kept.name]);
    expect((await world.store.members('web')).map((m) => m.name)).to.not.include(vanished.name);
  });

  it("the refill forgets a claimed member whose claimer is present with the uid and last saw the member's VMID as its own (renamed, its job stopped before forgetting); not one still being renamed", async () => {
    const renamed = await world.idleMember(web, 100151, 'pve1', new Date(Date.now() - 2000));
    const pending = await world.idleMember(web, 100152, 'pve1');
    await h.client.createVm({ name: 'foo', uid: 'u-foo' });
    await h.client.createVm({ name: 'bar', uid: 'u-bar' });
    await world.writers.registry.recordLastKnown('foo', { state: 'Running', vmid: 100151, node: 'pve1', at: new Date().toISOString() });
    const refill = { store: world.store, writers: world.writers, fingerprint: shapeFingerprint };
    // maxIdle 0: the two claims' demand creates no member here (claimed members count for nothing, so none drains).
    const outcome = await refillPool(refill, 'web', { ...web, minIdle: 0, maxIdle: 0 });
    expect(outcome.forgotten).to.deep.equal([renamed.name]);
    expect(await h.redis.exists(keys.desired(h.prefix, renamed.name))).to.equal(0);
    expect((await world.store.members('web')).map((m) => [m.name, m.claimedBy])).to.deep.equal([[pending.name, 'bar u-bar']]);
    expect((await refillPool(refill, 'web', { ...web, minIdle: 0, maxIdle: 0 })).forgotten, 'bar has not renamed it').to.deep.equal([]);
  });

  it('a drain and a claim never both take a member: whoever takes it from the idle set first owns it', async () => {
    const drained = await world.idleMember(web, 100111, 'pve1');
    expect(await world.store.takeForDrain('web', drained.name)).to.equal(true);
    expect(await world.store.takeForDrain('web', drained.name), 'a second drain').to.equal(false);
    expect((await h.client.createVm({ name: 'after-drain' })).origin).to.equal('cold');
    const claimed = await world.idleMember(web, 100112, 'pve1');
    expect((await h.client.createVm({ name: 'claimer' })).origin).to.equal('pool');
    expect(await world.store.takeForDrain('web', claimed.name), 'a drain after the claim').to.equal(false);
  });

  it('forgets a claimed member: its entry and its record go, with no tombstone and no delete job; the claimer stays', async () => {
    const member = await world.idleMember(web, 100121, 'pve1');
    const { jobId } = await h.client.createVm({ name: 'foo' });
    const claim = ((await h.queues.vm.getJob(jobId))?.data as { claim?: Parameters<PoolWorld['store']['forgetClaimed']>[0] }).claim;
    if (claim === undefined) throw new Error('no claim');
    const deletesBefore = (await h.queues.vm.getJobs(['waiting'])).filter((job) => job.name === 'delete').length;
    expect((await h.client.listVms({})).vms.map((vm) => vm.name), 'listed (its index built) before').to.deep.equal(['foo', claim.member]);
    await world.store.forgetClaimed(claim);
    expect(await h.redis.zrange(`${keys.desiredBy(h.prefix)}:all`, 0, -1), "the listing's index").to.deep.equal(['foo']);
    expect(await h.redis.exists(keys.desired(h.prefix, claim.member))).to.equal(0);
    expect(await h.client.getVm(claim.member)).to.equal(undefined);
    expect((await h.client.listVms({})).vms.map((vm) => vm.name)).to.deep.equal(['foo']);
    expect(await h.redis.sismember(keys.desiredIndex(h.prefix), claim.member)).to.equal(0);
    expect(await world.store.members('web')).to.deep.equal([]);
    expect(await world.store.poolsWithMembers()).to.deep.equal([]);
    expect((await h.queues.vm.getJobs(['waiting'])).filter((job) => job.name === 'delete')).to.have.length(deletesBefore);
    expect((await h.client.getVm('foo'))?.state).to.equal('present');
    expect(await world.store.handedOver(member), "a rerun of the member's create finds it forgotten").to.equal('forgotten');
    expect(await world.store.markIdle(member, shapeFingerprint(web)), 'forgotten: the claimer\'s, not to be drained').to.equal('handed-over');
    expect(await world.store.members('web')).to.deep.equal([]);
    await world.store.forgetClaimed(claim);
  });

  it("keeps the pool's demand: every create that tries to claim, hit or miss, and a member's lead time when it becomes idle; the refill fills up to minIdle plus the tries within the lead time", async () => {
    const print = shapeFingerprint(web);
    const started = Date.now();
    const added = await world.store.addMember(web, print, 'u-lead', new Date(started - 30_000));
    await acceptMemberCreate(world.writers, web, added);
    expect(await world.store.markIdle({ ...added, vmid: 100161, node: 'pve1', readyAt: new Date(started).toISOString() }, print)).to.equal('idle');
    expect(await world.store.markIdle({ ...added, vmid: 100161, node: 'pve1', readyAt: new Date(started).toISOString() }, print), 'a rerun').to.equal('idle');
    expect((await h.client.createVm({ name: 'hit', uid: 'u-hit' })).origin).to.equal('pool');
    expect((await h.client.createVm({ name: 'miss', uid: 'u-miss' })).origin).to.equal('cold');
    await h.client.createVm({ name: 'miss', uid: 'u-miss' });
    await h.client.createVm({ name: 'never', pool: false });
    const demand = await world.store.demand('web', new Date());
    expect(demand.leadTimesMs, 'one lead time, measured once: entry to idle').to.deep.equal([30_000]);
    expect(demand.claimTimesMs, 'the hit and the miss; no repeat, no pool false').to.have.length(2);
    for (const at of demand.claimTimesMs) expect(at).to.be.within(started, Date.now());
    expect(await h.redis.pttl(keys.poolClaims(h.prefix, 'web')), 'kept an hour').to.be.within(3_500_000, 3_600_000);
    expect(await world.store.demand('web', new Date(Date.now() + 3_700_000)), 'an hour on').to.deep.include({ claimTimesMs: [] });
    const outcome = await refillPool({ store: world.store, writers: world.writers, fingerprint: shapeFingerprint }, 'web', { ...web, minIdle: 2, maxIdle: 10 });
    expect(outcome.created, 'minIdle 2 plus 2 tried within 30 s').to.have.length(4);
  });
});
