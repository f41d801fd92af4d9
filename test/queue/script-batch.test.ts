// A worker's lock calls of one tick go to Redis as one script call
// (SPEC 21), and each is answered as if it had run alone (SPEC 2, 3).
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { NameLocks } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { REDIS_URL, countingRedis } from '../support/redis.js';


describe('lock calls of one tick in one Redis call (SPEC 21, SPEC 3)', function () {
  let h: Harness;
  let counted: Redis | undefined;

  afterEach(async () => {
    counted?.disconnect();
    counted = undefined;
    await h.close();
  });

  it('answers each call as if it ran alone, in the order made: one taker per name', async () => {
    h = createHarness('batch-order');
    const { redis, sent } = await countingRedis();
    counted = redis;
    const locks = new NameLocks(redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await registry.recordPresent('b1', 'u1', { name: 'b1', uid: 'u1' });
    await locks.tryAcquireReading('warm', 1000); // loads the script
    sent.length = 0;

    const claims = await Promise.all([
      locks.tryAcquireReading('b1', 5000, 1),
      locks.tryAcquireReading('b1', 5000, 1),
      locks.tryAcquireReading('b2', 5000, 1),
      locks.tryAcquireReading('b1', 5000, 0),
    ]);
    expect(claims.map((c) => c.outcome)).to.deep.equal(['taken', 'held', 'taken', 'older']);
    expect(claims[1]?.record).to.deep.equal({ name: 'b1', state: 'present', uid: 'u1', generation: 1 });
    expect(claims[2]?.record).to.equal(undefined);
    expect(sent).to.deep.equal(['evalsha'], 'four calls, one round trip');

    const [first, , second] = claims;
    if (first?.outcome !== 'taken' || second?.outcome !== 'taken') throw new Error('expected both names taken');
    const at = new Date().toISOString();
    const released = await Promise.all([
      locks.releaseWriting('b1', first.token, { lastKnown: { state: 'Running', at } }),
      locks.releaseWriting('b2', second.token, { lastKnown: { state: 'Running', at } }),
      locks.releaseWriting('b1', first.token, { lastKnown: { state: 'Stopped', at } }),
    ]);
    expect(released).to.deep.equal([true, true, false], 'the second release of b1 finds it free');
    expect((await registry.get('b1'))?.lastKnown).to.deep.equal({ state: 'Stopped', at }, 'writes land in the order made');
    expect(sent).to.deep.equal(['evalsha', 'evalsha']);

    const again = await locks.tryAcquireReading('b1', 5000);
    if (again.outcome !== 'taken') throw new Error('expected b1 free');
    expect(await locks.release('b1', again.token)).to.equal(true);
    expect((await registry.get('b1'))?.lastKnown).to.deep.equal({ state: 'Stopped', at }, 'a plain release writes nothing');
  });

  it('a call that fails in Redis rejects only its own caller', async () => {
    h = createHarness('batch-error');
    const locks = new NameLocks(h.redis, h.prefix);
    await h.redis.set(`${h.prefix}:desired:broken`, 'not a hash');
    const [broken, fine] = await Promise.allSettled([locks.tryAcquireReading('broken', 5000, 1), locks.tryAcquireReading('fine', 5000, 1)]);
    expect(broken.status).to.equal('rejected');
    expect(String(broken.status === 'rejected' ? broken.reason : '')).to.match(/^Error: WRONGTYPE/, 'the error Redis raised, as it raised it');
    expect(fine.status === 'fulfilled' ? fine.value.outcome : fine.reason).to.equal('taken');
    expect(await locks.isHeld('broken')).to.equal(false);
  });

  it('every call fails when the batch cannot reach Redis', async () => {
    h = createHarness('batch-down');
    // A single Redis's connection, closed: an ioredis Cluster quit before it was ready leaves its commands waiting instead.
    const closed = new Redis(REDIS_URL);
    await closed.quit();
    const locks = new NameLocks(closed, h.prefix);
    const results = await Promise.allSettled([locks.tryAcquireReading('a', 5000), locks.tryAcquireReading('b', 5000)]);
    expect(results.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
  });
});
