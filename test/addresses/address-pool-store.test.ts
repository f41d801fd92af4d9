// SPEC 29 (issue 31): a lease ends when its VM is gone, and its address
// then rests networks[].reuseCooldownSeconds before it is handed out
// again. The release script against the real Redis, on the pools' shared
// layout: idempotent, freeing an address only from its own holder, the
// rest counted from Redis's clock; and the pools' figures for /metrics.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { AddressPoolStore } from '../../src/addresses/address-pool-store.js';
import { handOutSize } from '../../src/addresses/pool-size.js';
import { allocationArgs } from '../../src/addresses/pool-args.js';
import { keys } from '../../src/redis-keys.js';
import { leaseState, putLease, testPool } from '../support/address-leases.js';
import { deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';

const POOL = testPool({ reuseCooldownSeconds: 30 });
const WEB = { name: 'web-1', uid: 'u1', pool: POOL.name, address: '127.77.0.20' };

async function redisNowMs(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describe('address leases end, and their addresses rest (SPEC 29)', () => {
  let redis: Redis;
  let prefix: string;
  let store: AddressPoolStore;

  beforeEach(() => {
    redis = newRedis();
    prefix = keyPrefix(uniquePrefix('addr-release'));
    store = new AddressPoolStore(redis, prefix, [POOL]);
  });

  afterEach(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('a release removes the lease and the held entry, and rests the address until Redis time + the pool\'s cooldown', async () => {
    await putLease(redis, prefix, WEB);
    const before = await redisNowMs(redis);
    const released = await store.release(WEB.name, WEB.uid);
    const after = await redisNowMs(redis);
    expect(released).to.include({ name: 'web-1', uid: 'u1', pool: 'lab', address: '127.77.0.20' });
    const state = await leaseState(redis, prefix, WEB);
    expect(state).to.include({ lease: null, holder: null });
    expect(state.coolingUntil).to.be.within(before + 30_000, after + 30_000);
    expect(released?.restsUntilMs).to.equal(state.coolingUntil);
  });

  it('is idempotent: a second release, or one of a lease never taken, finds nothing and moves no rest', async () => {
    await putLease(redis, prefix, WEB);
    const first = await store.release(WEB.name, WEB.uid);
    expect(await store.release(WEB.name, WEB.uid)).to.equal(undefined);
    expect(await store.release('never', 'u9')).to.equal(undefined);
    expect((await leaseState(redis, prefix, WEB)).coolingUntil).to.equal(first?.restsUntilMs);
  });

  it('frees the address only from its own holder: one held by another name keeps its holder and gets no rest', async () => {
    await putLease(redis, prefix, WEB);
    await redis.hset(keys.addressHeld(prefix, POOL.name), WEB.address, 'web-2 u2');
    const released = await store.release(WEB.name, WEB.uid);
    expect(released?.restsUntilMs).to.equal(undefined);
    expect(await leaseState(redis, prefix, WEB)).to.deep.equal({ lease: null, holder: 'web-2 u2', coolingUntil: undefined });
  });

  it('never shortens a longer rest the address already has', async () => {
    const far = (await redisNowMs(redis)) + 3_600_000;
    await putLease(redis, prefix, WEB);
    await redis.zadd(keys.addressCooling(prefix, POOL.name), far, WEB.address);
    await store.release(WEB.name, WEB.uid);
    expect((await leaseState(redis, prefix, WEB)).coolingUntil).to.equal(far);
  });

  it('`unclaimed` keeps the lease of the uid its name is present with, and ends one of another uid or of an absent name', async () => {
    await putLease(redis, prefix, WEB);
    await redis.hset(keys.desired(prefix, WEB.name), { state: 'present', uid: 'u1', generation: 3 });
    expect(await store.release(WEB.name, WEB.uid, 'unclaimed')).to.equal(undefined);
    expect((await leaseState(redis, prefix, WEB)).holder).to.equal('web-1 u1');

    await redis.hset(keys.desired(prefix, WEB.name), { state: 'present', uid: 'u2' });
    expect(await store.release(WEB.name, WEB.uid, 'unclaimed')).to.include({ address: WEB.address });

    const old = { ...WEB, name: 'old-1', address: '127.77.0.21' };
    await putLease(redis, prefix, old);
    await redis.hset(keys.desired(prefix, old.name), { state: 'absent', uid: 'u1' });
    expect(await store.release(old.name, old.uid, 'unclaimed')).to.include({ address: old.address });
  });

  it('`failed` ends the present uid\'s lease only while its create\'s Permanent failure is on the name', async () => {
    await putLease(redis, prefix, WEB);
    await redis.hset(keys.desired(prefix, WEB.name), { state: 'present', uid: 'u1' });
    expect(await store.release(WEB.name, WEB.uid, 'failed')).to.equal(undefined);
    await redis.hset(keys.desired(prefix, WEB.name), 'failed', JSON.stringify({ reason: 'bad template', generation: 1 }));
    expect(await store.release(WEB.name, WEB.uid, 'failed')).to.include({ address: WEB.address });
  });

  it("drops the name's recorded address when it is this lease, and keeps another", async () => {
    const lease = await putLease(redis, prefix, WEB);
    await redis.hset(keys.desired(prefix, WEB.name), { state: 'absent', uid: 'u1', address: JSON.stringify(lease) });
    const other = { ...WEB, name: 'db-1', address: '127.77.0.22' };
    await putLease(redis, prefix, other);
    const newer = JSON.stringify({ ...lease, uid: 'u7', address: '127.77.0.30' });
    await redis.hset(keys.desired(prefix, other.name), { state: 'absent', uid: 'u1', address: newer });
    await store.release(WEB.name, WEB.uid);
    await store.release(other.name, other.uid);
    expect(await redis.hget(keys.desired(prefix, WEB.name), 'address')).to.equal(null);
    expect(await redis.hget(keys.desired(prefix, other.name), 'address')).to.equal(newer);
  });

  it('lists every lease by name and uid', async () => {
    await putLease(redis, prefix, WEB);
    await putLease(redis, prefix, { ...WEB, name: 'db-1', uid: 'u5', address: '127.77.0.22' });
    const listed = (await store.list()).map((held) => [held.name, held.uid, held.lease.address]).sort();
    expect(listed).to.deep.equal([
      ['db-1', 'u5', '127.77.0.22'],
      ['web-1', 'u1', '127.77.0.20'],
    ]);
  });
});

describe('the pools\' figures (SPEC 29 metrics)', () => {
  it('hands out the range less the network, broadcast and gateway addresses and the excluded ones inside it', () => {
    expect(handOutSize(testPool())).to.equal(253);
    // An exclude entry is an address (the config refuses a CIDR block there), as the door reads it.
    expect(handOutSize(testPool({ exclude: ['127.77.0.10', '127.77.0.16/30', '127.77.0.1', '10.0.0.1'] }))).to.equal(252);
    expect(handOutSize(testPool({ first: '127.77.0.100', last: '127.77.0.199', exclude: ['127.77.0.150', '127.77.0.50'] }))).to.equal(99);
    expect(handOutSize(testPool({ cidr: '127.77.0.8/31', gateway: undefined }))).to.equal(0);
  });

  it("counts exactly the addresses the door's allocation may hand out, from the same skip list (one rule, not two that can disagree)", () => {
    const pools = [
      testPool(),
      testPool({ exclude: ['127.77.0.10', '127.77.0.16/30', '127.77.0.1', '10.0.0.1'] }),
      testPool({ first: '127.77.0.100', last: '127.77.0.199', exclude: ['127.77.0.150', '127.77.0.50'] }),
      testPool({ cidr: '127.77.0.8/31', gateway: undefined }),
    ];
    for (const pool of pools) {
      const door = JSON.parse(allocationArgs(pool, new Date(0).toISOString()).pool) as { first: number; last: number; skip: number[] };
      expect(handOutSize(pool), JSON.stringify(pool)).to.equal(Math.max(0, door.last - door.first + 1 - door.skip.length));
    }
  });

  it('counts addresses in use, resting past now, and free, per configured pool', async () => {
    const redis = newRedis();
    const prefix = keyPrefix(uniquePrefix('addr-counts'));
    try {
      const small = testPool({ cidr: '127.77.0.0/28' });
      const store = new AddressPoolStore(redis, prefix, [small, testPool({ name: 'empty', cidr: '127.78.0.0/24', gateway: '127.78.0.1' })]);
      await putLease(redis, prefix, { name: 'a', uid: 'u1', pool: 'lab', address: '127.77.0.2' });
      await putLease(redis, prefix, { name: 'b', uid: 'u2', pool: 'lab', address: '127.77.0.3' });
      const now = await redisNowMs(redis);
      await redis.zadd(keys.addressCooling(prefix, 'lab'), now + 60_000, '127.77.0.4', now - 1, '127.77.0.5');
      expect(await store.counts()).to.deep.equal([
        // 14 hosts less the gateway: 13; 2 held, 1 resting (the other one is due), 10 free.
        { pool: 'lab', inUse: 2, cooling: 1, free: 10 },
        { pool: 'empty', inUse: 0, cooling: 0, free: 253 },
      ]);
    } finally {
      await deletePrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
