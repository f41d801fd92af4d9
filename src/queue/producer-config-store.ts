// The service's producer config in Redis (SPEC 6, 27): the web and worker
// processes write it at start and again on each reconnect (a Redis that
// restarted without it); a client given no config reads it. Several
// processes with different configs on one prefix: the last writer wins.
import type { RedisClient } from '../redis-script.js';
import { parsePublished, publishedProducerConfig, type PublishedRead } from '../config/producer-published.js';
import type { ProducerSettings } from '../config/producer.js';
import { keys } from '../redis-keys.js';
import { republishedOnReady } from './republish.js';

export interface ProducerConfigPublisher {
  /** Writes it now; rejects when Redis does not take it. */
  write(): Promise<void>;
  /** No more rewrites on reconnect. */
  stop(): void;
}

export function producerConfigPublisher(redis: RedisClient, prefix: string, config: ProducerSettings): ProducerConfigPublisher {
  const text = JSON.stringify(publishedProducerConfig(config));
  return republishedOnReady(redis, async () => {
    await redis.set(keys.producerConfig(prefix), text);
  });
}

export async function readProducerConfig(redis: RedisClient, prefix: string): Promise<PublishedRead> {
  const key = keys.producerConfig(prefix);
  return parsePublished(await redis.get(key), key);
}
