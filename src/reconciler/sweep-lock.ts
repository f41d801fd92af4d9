// At most one sweep at a time across all processes (SPEC 5): a Redis lock
// held as the name locks are (src/queue/name-lock.ts tryHoldKey: a random
// token, renewed while the sweep runs, released only by its holder). A
// process that finds it held skips its sweep: the next scheduled one will
// come.
import type { RedisClient } from '../redis-script.js';
import { tryHoldKey } from '../queue/name-lock.js';

/**
 * Runs `fn` holding the lock, or returns 'skipped' when another process
 * holds it. `fn`'s signal aborts when the lock is lost, so the sweep stops
 * before its next action rather than race a second sweep.
 */
export async function withSweepLock<T>(redis: RedisClient, key: string, ttlMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T | 'skipped'> {
  const outcome = await tryHoldKey(redis, key, ttlMs, `the sweep lock ${key}`, fn);
  return outcome.ran ? outcome.value : 'skipped';
}
