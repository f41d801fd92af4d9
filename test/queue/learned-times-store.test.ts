// SPEC 26, issue 27: the learned wait times live in Redis, shared by every
// worker process on the prefix and kept across restarts. Two stores on one
// prefix merge their samples (neither overwrites); a new process reads
// them back; with Redis not answering a process goes on learning in
// memory and says so once; kinds unused for 30 days go.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createBudgetConnection } from '../../src/queue/connection.js';
import { LEARNED_TTL_MS, redisLearnedTimes } from '../../src/queue/learned-times-store.js';
import { Expectations, PollSchedule, boardShape } from '../../src/provider/waits/expectations.js';
import { LearnedSync } from '../../src/provider/waits/learned-sync.js';
import { mergeGuess, mergeSample, type Learned, type LearnedTimesStore } from '../../src/provider/waits/learned-times.js';
import { keys } from '../../src/redis-keys.js';
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

interface RedisRelay {
  /** Closes the relay and every connection through it: Redis does not answer. */
  cut(): Promise<void>;
  /** Listens again on the same port: Redis answers again. */
  restore(): Promise<void>;
}

/** A TCP relay on `port` to the test Redis, to cut and restore as an outage. */
async function redisRelay(port: number): Promise<RedisRelay> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const restore = async (): Promise<void> => {
    const listening = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    server = listening;
  };
  const cut = async (): Promise<void> => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing !== undefined) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  await restore();
  return { cut, restore };
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

  it('keeps every kind in one hash under the hash tag {prefix}, Cluster-safe (SPEC 25)', () => {
    expect(keys.learnedTimes('pvep')).to.equal('{pvep}:learned-times');
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

  it('a guess (half an address look already too late) stands only until a sample: it never replaces one', async () => {
    const a = redisLearnedTimes(redis, prefix);
    const b = redisLearnedTimes(other, prefix);
    expect(await a.guess('address:tiny', 15_000)).to.deep.equal({ mean: 15_000, spread: 0, samples: 0 });
    expect(await b.guess('address:tiny', 7_500)).to.deep.equal({ mean: 7_500, spread: 0, samples: 0 });
    // A restarted worker reads the guess back and asks at it first.
    const restarted = expectationsOn(redisLearnedTimes(other, prefix));
    await restarted.current();
    expect(restarted.schedule('address:tiny', SHAPE, 30_000).next()).to.equal(7_500);
    // The first sample replaces the guess; a later guess leaves the sample as it is.
    expect(await a.add('address:tiny', 11_000)).to.deep.equal({ mean: 11_000, spread: 0, samples: 1 });
    expect(await b.guess('address:tiny', 5_000)).to.deep.equal({ mean: 11_000, spread: 0, samples: 1 });
    expect((await a.read()).get('address:tiny')).to.deep.equal({ mean: 11_000, spread: 0, samples: 1 });
  });

  it('the key expires when no kind was seen for 30 days, and a kind unused that long is dropped', async () => {
    const a = redisLearnedTimes(redis, prefix);
    await a.add('qmstart', 1000);
    const ttl = await redis.pttl(keys.learnedTimes(prefix));
    expect(ttl).to.be.above(LEARNED_TTL_MS - 60_000).and.at.most(LEARNED_TTL_MS);
    const old = Date.now() - LEARNED_TTL_MS - 1;
    await redis.hset(keys.learnedTimes(prefix), 'resize', `500 0 3 ${old}`);
    expect([...(await a.read()).keys()]).to.deep.equal(['qmstart']);
    // The next sample starts it afresh and clears out the stale kind.
    expect(await a.add('qmclone:debian', 2000)).to.deep.equal({ mean: 2000, spread: 0, samples: 1 });
    expect(await redis.hexists(keys.learnedTimes(prefix), 'resize')).to.equal(0);
  });

  it('reads the store at most once per refresh period, however many waits are scheduled', async () => {
    let reads = 0;
    const store: LearnedTimesStore = {
      read: () => {
        reads += 1;
        return Promise.resolve(new Map<string, Learned>());
      },
      add: (_kind, sample) => Promise.resolve(mergeSample(undefined, sample)),
      guess: (_kind, guessMs) => Promise.resolve(mergeGuess(undefined, guessMs)),
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

  it('when Redis answers again: says so once, and shares what it learns from then on', async () => {
    const port = await freePort();
    const relay = await redisRelay(port);
    const through = createBudgetConnection(`redis://127.0.0.1:${port}`, scaledByLoad(500));
    through.on('error', () => undefined);
    const { logger, records } = captureLogger('info');
    const lines = (): unknown[] => records.filter((r) => String(r.msg).startsWith('learned wait times')).map((r) => r.msg);
    try {
      const e = expectationsOn(redisLearnedTimes(through, prefix), logger, 0);
      await e.current();
      expect(lines()).to.deep.equal([]);
      await relay.cut();
      await until(async () => {
        await e.current();
        return lines().length > 0;
      });
      // Learned while Redis is down: kept in memory only.
      seen(e, 'qmstart', 1000);
      await relay.restore();
      await until(async () => {
        await e.current();
        return lines().length > 1;
      });
      expect(lines()).to.deep.equal([
        'learned wait times: Redis does not answer; this process learns in memory until it does',
        'learned wait times: Redis answers again; sharing them with the other workers',
      ]);
      seen(e, 'resize', 2000);
      await until(async () => (await redisLearnedTimes(redis, prefix).read()).has('resize'));
      expect((await redisLearnedTimes(redis, prefix).read()).get('resize')).to.deep.equal({ mean: 2000, spread: 0, samples: 1 });
    } finally {
      through.disconnect();
      await relay.cut();
    }
  });
});
