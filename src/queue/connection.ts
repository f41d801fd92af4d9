// Redis connections. Workers block on Redis and must retry for ever
// (BullMQ needs maxRetriesPerRequest: null); producers are request paths
// and fail fast when Redis is down rather than queueing commands.
import { Redis } from 'ioredis';

export type { Redis } from 'ioredis';

export function createWorkerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

export function createProducerConnection(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, connectTimeout: 2000, maxRetriesPerRequest: 1, lazyConnect: true });
  // Failures reach the caller through the rejected command; the event
  // would only print ioredis's "Unhandled error event" on stderr.
  redis.on('error', () => undefined);
  return redis;
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
  const where = `${redis.options.host ?? '?'}:${redis.options.port ?? '?'}`;
  try {
    const pending = connecting.get(redis);
    if (pending !== undefined) await pending;
    else if (redis.status === 'wait') await connectOnce(redis);
    else await redis.ping();
  } catch (err) {
    throw new RedisUnavailableError(`Redis at ${where} is unavailable: ${err instanceof Error ? err.message : String(err)}`);
  }
  return redis;
}
