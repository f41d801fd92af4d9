// What a process publishes in Redis for the others (the producer config,
// the tenants' webhook URLs): written once by `write`, and again on each
// 'ready' of the connection, as a Redis restart or failover may have lost
// it, or the first write came while Redis was away.
import type { RedisClient } from '../redis-script.js';

export interface Republished {
  write(): Promise<void>;
  /** No more writes on 'ready'. */
  stop(): void;
}

export function republishedOnReady(redis: RedisClient, write: () => Promise<void>): Republished {
  // Redis gone again before the write: the next 'ready' writes it.
  const rewrite = (): void => void write().catch(() => undefined);
  redis.on('ready', rewrite);
  return { write, stop: () => void redis.off('ready', rewrite) };
}
