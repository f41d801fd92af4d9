// Redis connections. Workers block on Redis and must retry for ever
// (BullMQ needs maxRetriesPerRequest: null); producers are request paths
// and fail fast when Redis is down rather than queueing commands.
import { Redis } from 'ioredis';

export type { Redis } from 'ioredis';

export function createWorkerConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

export function createProducerConnection(url: string): Redis {
  return new Redis(url, { enableOfflineQueue: false, connectTimeout: 2000, maxRetriesPerRequest: 1, lazyConnect: true });
}

/** Connects a lazy connection and waits until it answers. */
export async function connected(redis: Redis): Promise<Redis> {
  if (redis.status === 'wait') await redis.connect();
  else if (redis.status !== 'ready') {
    await new Promise<void>((resolve, reject) => {
      redis.once('ready', () => resolve());
      redis.once('error', reject);
    });
  }
  return redis;
}
