// SPEC 26, issue 27: the learned wait times live in Redis, shared by every
// worker process on the prefix and kept across restarts. Two stores on one
// prefix merge their samples (neither overwrites); a new process reads
// them back; with Redis not answering a process goes on learning in
// memory and says so once; kinds unused for 30 days go.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createBudgetConnection } from '../../src/queue/connection.js';
import { LEARNED_TTL_MS, learnedTimesKey, redisLearnedTimes } from '../../src/queue/learned-times-store.js';
import { Expectations, PollSchedule, boardShape } from '../../src/provider/expectations.js';
import { LearnedSync } from '../../src/provider/learned-sync.js';
import { mergeSample, type Learned, type LearnedTimesStore } from '../../src/provider/learned-times.js';
import { captureLogger } from '../support/capture-logger.js';
import { freePort } from '../support/free-port.js';
import { scaledByLoad } from '../support/machine.js';
import { REDIS_URL, deletePrefix, uniquePrefix } from '../support/redis.js';

const SHAPE = boardShape(1000);

/** A wait of `kind` seen over at `ms`, at a poll outside any plan: the sample is `ms` itself. */
function seen(e: Expectations, kind: string, ms: number): void {
  e.observe(kind, ms, new PollSchedule(undefined, SHAPE));
}

function expectationsOn(store: LearnedTimesStore, logger = captureLogger().logger, refreshMs?: number): Expectations {
  return new Expectations(new LearnedSync({ store, logger, now: () => new Date(), ...(refreshMs === undefined ? {} : { refreshMs }) }));
}

/** Until `check` holds (a sample goes to Redis in the background); mocha's timeout bounds it. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('learned wait times in Redis (SPEC 26, issue 27)', function () {
  this.timeout(30_000);
  const prefix = uniquePrefix('learned-times');
  const redis = new Redis(REDIS_URL);
  const other = new Redis(REDIS_URL);

  afterEach(async () => {
    await deletePrefix(redis, prefix);
  });
  after(() => {
    redis.disconnect();
    other.disconnect();
  });

  it('two stores on one prefix merge their samples, one after the other, as the running mean and spread', async () => {
    const a = redisLearnedTimes(redis, prefix);
    const b = redisLearnedTimes(other, prefix);
    expect(await a.add('address:debian', 40_000)).to.deep.equal({ mean: 40_000, spread: 0, samples: 1 });
    const merged = await b.add('address:debian', 50_000);
    expect(merged).to.deep.equal(mergeSample({ mean: 40_000, spread: 0, samples: 1 }, 50_000));
    expect(merged.mean).to.be.closeTo(43_000, 1e-9);
    expect((await a.read()).get('address:debian')).to.deep.equal(merged);
  });

  it('samples sent at once by two stores all count: none overwrites another', async () => {
    const a = redisLearnedTimes(redis, prefix);
    const b = redisLearnedTimes(other, prefix);
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).add('qmstart', 1000)));
    expect((await b.read()).get('qmstart')).to.deep.equal({ mean: 1000, spread: 0, samples: 20 });
  });

  it("two processes' expectations learn together; a process started later schedules from what they learned", async () => {
    const first = expectationsOn(redisLearnedTimes(redis, prefix));
    const second = expectationsOn(redisLearnedTimes(other, prefix));
    seen(first, 'address:debian', 40_000);
    await until(async () => (await redisLearnedTimes(redis, prefix).read()).has('address:debian'));
    seen(second, 'address:debian', 50_000);
    // The second took the merged value from the script's answer: both samples count.
    await until(() => second.expected('address:debian') === 43_000);

    const third = new Redis(REDIS_URL);
    try {
      const restarted = expectationsOn(redisLearnedTimes(third, prefix));
      await restarted.current();
      expect(restarted.expected('address:debian')).to.equal(43_000);
      expect(restarted.schedule('address:debian', SHAPE).expectedMs).to.equal(43_000);
    } finally {
      third.disconnect();
    }
  });

  it('the key expires when no kind was seen for 30 days, and a kind unused that long is dropped', async () => {
    const a = redisLearnedTimes(redis, prefix);
    await a.add('qmstart', 1000);
    const ttl = await redis.pttl(learnedTimesKey(prefix));
    expect(ttl).to.be.above(LEARNED_TTL_MS - 60_000).and.at.most(LEARNED_TTL_MS);
    const old = Date.now() - LEARNED_TTL_MS - 1;
    await redis.hset(learnedTimesKey(prefix), 'resize', `500 0 3 ${old}`);
    expect([...(await a.read()).keys()]).to.deep.equal(['qmstart']);
    // The next sample starts it afresh and clears out the stale kind.
    expect(await a.add('qmclone:debian', 2000)).to.deep.equal({ mean: 2000, spread: 0, samples: 1 });
    expect(await redis.hexists(learnedTimesKey(prefix), 'resize')).to.equal(0);
  });

  it('reads the store at most once per refresh period, however many waits are scheduled', async () => {
    let reads = 0;
    const store: LearnedTimesStore = {
      read: () => {
        reads += 1;
        return Promise.resolve(new Map<string, Learned>());
      },
      add: (_kind, sample) => Promise.resolve(mergeSample(undefined, sample)),
    };
    const e = expectationsOn(store, undefined, 60_000);
    for (let i = 0; i < 20; i++) {
      e.schedule('qmstart', SHAPE);
      await e.current();
    }
    expect(reads).to.equal(1);
  });

  it('with Redis not answering: learns in memory, never stalls past the command timeout, and says so once', async () => {
    const port = await freePort();
    const down = createBudgetConnection(`redis://127.0.0.1:${port}`, scaledByLoad(200));
    down.on('error', () => undefined);
    const { logger, records } = captureLogger('info');
    try {
      const e = expectationsOn(redisLearnedTimes(down, prefix), logger, 0);
      await e.current();
      seen(e, 'qmstart', 1000);
      seen(e, 'qmstart', 1000);
      await e.current();
      expect(e.expected('qmstart')).to.equal(1000);
      expect(e.steady('qmstart')).to.equal(true);
      const warned = records.filter((r) => String(r.msg).startsWith('learned wait times'));
      expect(warned.map((r) => r.msg)).to.deep.equal(['learned wait times: Redis does not answer; this process learns in memory until it does']);
    } finally {
      down.disconnect();
    }
  });
});
