// Redis connections. Workers block on Redis and must retry for ever
// (BullMQ needs maxRetriesPerRequest: null); producers and the web process
// are request paths and fail fast when Redis is down rather than queueing
// commands. Every connection retries with backoff (redis-backoff.ts) and
// reports its failures to its address's outage reporter, which logs them
// once per interval in words (SPEC 24); BullMQ's duplicates of a
// connection report the same way.
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { redisRetryDelayMs } from './redis-backoff.js';
import { formatAddress, redisAddressOf, unreachableLine, unreachableReason } from './redis-failure.js';
import { redisOutageReporter, type OutageLogger, type RedisOutageReporter } from './redis-outage.js';

export type { Redis } from 'ioredis';

/** Listens to a connection (and every duplicate made of it) on behalf of its reporter. */
function watched(redis: Redis, reporter: RedisOutageReporter): Redis {
  redis.on('error', (err: unknown) => {
    reporter.failed(err);
  });
  redis.on('ready', () => reporter.recovered());
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (override?: Partial<RedisOptions>) => watched(duplicate(override), reporter);
  return redis;
}

function connect(url: string, options: RedisOptions): Redis {
  const reporter = redisOutageReporter(redisAddressOf(url));
  const retryStrategy = (times: number): number => {
    const delay = redisRetryDelayMs(times);
    reporter.retrying(delay);
    return delay;
  };
  return watched(new Redis(url, { ...options, retryStrategy }), reporter);
}

export function createWorkerConnection(url: string): Redis {
  return connect(url, { maxRetriesPerRequest: null });
}

/** The web process's own connection (readiness, Bull Board, metrics): commands fail at once while it is down. */
export function createWebConnection(url: string): Redis {
  return connect(url, { enableOfflineQueue: false, connectTimeout: 2000, maxRetriesPerRequest: 1 });
}

export function createProducerConnection(url: string): Redis {
  return connect(url, { enableOfflineQueue: false, connectTimeout: 2000, maxRetriesPerRequest: 1, lazyConnect: true });
}

/**
 * An 'error' event of a BullMQ Queue or Worker on this connection: a
 * connection failure goes to the outage reporter, anything else is logged
 * once as the error it is.
 */
export function reportRedisError(connection: unknown, err: unknown, source: string, logger?: OutageLogger): void {
  const address = connection instanceof Redis ? addressOfConnection(connection) : 'redis';
  redisOutageReporter(address).error(err, source, logger);
}

function addressOfConnection(redis: Redis): string {
  return formatAddress(redis.options.host ?? '127.0.0.1', redis.options.port ?? 6379);
}

export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

// Calls made together on a fresh connection share its one connect: the
// ones after the first would otherwise find it still connecting and send a
// command that a connection without an offline queue refuses at once.
const connecting = new WeakMap<Redis, Promise<void>>();

function connectOnce(redis: Redis): Promise<void> {
  let pending = connecting.get(redis);
  if (pending === undefined) {
    pending = redis.connect().finally(() => connecting.delete(redis));
    connecting.set(redis, pending);
  }
  return pending;
}

/** Connects a lazy connection and waits until it answers; rejects at once when Redis is down. */
export async function connected(redis: Redis): Promise<Redis> {
  if (redis.status === 'ready') return redis;
  try {
    const pending = connecting.get(redis);
    if (pending !== undefined) await pending;
    else if (redis.status === 'wait') await connectOnce(redis);
    else await redis.ping();
  } catch (err) {
    const reporter = redisOutageReporter(addressOfConnection(redis));
    const reason = unreachableReason(err) ?? reporter.current()?.reason ?? (err instanceof Error ? err.message : String(err));
    throw new RedisUnavailableError(unreachableLine(addressOfConnection(redis), reporter.current()?.reason ?? reason));
  }
  return redis;
}
