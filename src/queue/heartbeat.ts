// Worker liveness for /readyz: each worker process keeps its id in the
// sorted set `<prefix>:workers`, scored with the time its beat expires,
// and its beat in the hash `<prefix>:worker-beats`. A process that dies
// stops renewing and drops out within the TTL; whoever lists the workers
// removes the expired ones. Two keys of one prefix and no SCAN of the
// keyspace, which a Redis Cluster does not give (SPEC 25).
import { hostname } from 'node:os';
import { LuaScript, type RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';

export interface WorkerBeat {
  id: string;
  host: string;
  pid: number;
  startedAt: string;
  concurrency: number;
  at: string;
}

export interface Heartbeat {
  /** Settles once the first beat is written (or failed: Redis down, the next beat tries again). */
  first: Promise<void>;
  stop(): Promise<void>;
}

const HEARTBEAT_EVERY_MS = 5_000;

// Redis's own clock scores the beats, so workers on hosts whose clocks
// disagree still expire on time.
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: workers, beats. ARGV: id, beat JSON, ttl ms. */
const BEAT = new LuaScript(`${NOW_MS}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1`);

/** KEYS: workers, beats. Drops the expired, answers the live beats. */
const LIVE = new LuaScript(`${NOW_MS}
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #gone > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  redis.call('HDEL', KEYS[2], unpack(gone))
end
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
if #live == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(live))`);

/** Told at each beat skipped while one has gone unanswered for a while, and when it is answered again. */
export interface HeartbeatWatch {
  unanswered(everyMs: number): void;
  answered(): void;
}

/** Beats skipped, one still waiting for Redis, before the watch is told. */
const UNANSWERED_AFTER_BEATS = 2;

export function startHeartbeat(redis: RedisClient, prefix: string, id: string, concurrency: number, everyMs = HEARTBEAT_EVERY_MS, watch?: HeartbeatWatch): Heartbeat {
  const startedAt = new Date().toISOString();
  const scriptKeys = [keys.workers(prefix), keys.workerBeats(prefix)];
  const beat = async (): Promise<void> => {
    const value: WorkerBeat = { id, host: hostname(), pid: process.pid, startedAt, concurrency, at: new Date().toISOString() };
    // Three missed beats and the worker counts as gone.
    await BEAT.run(redis, scriptKeys, [id, JSON.stringify(value), everyMs * 3]);
  };
  // One beat at a time: a connection that waits for Redis for ever (a
  // worker's) would otherwise pile them up. Skipped ones are counted, as a
  // Cluster slot without a master waits without an error.
  let pending: Promise<void> | undefined;
  let skipped = 0;
  const tick = (): Promise<void> => {
    if (pending !== undefined) {
      skipped += 1;
      if (skipped >= UNANSWERED_AFTER_BEATS) watch?.unanswered(everyMs);
      return pending;
    }
    pending = beat()
      .catch(() => undefined) // Redis down: the next beat tries again.
      .finally(() => {
        pending = undefined;
        if (skipped >= UNANSWERED_AFTER_BEATS) watch?.answered();
        skipped = 0;
      });
    return pending;
  };
  const first = tick();
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  return {
    first,
    async stop() {
      clearInterval(timer);
      await redis
        .multi()
        .zrem(keys.workers(prefix), id)
        .hdel(keys.workerBeats(prefix), id)
        .exec()
        .catch(() => undefined);
    },
  };
}

export async function listLiveWorkers(redis: RedisClient, prefix: string): Promise<WorkerBeat[]> {
  const values = (await LIVE.run(redis, [keys.workers(prefix), keys.workerBeats(prefix)], [])) as (string | null)[];
  return values.flatMap((text) => {
    if (text === null) return [];
    try {
      return [JSON.parse(text) as WorkerBeat];
    } catch {
      return [];
    }
  });
}
