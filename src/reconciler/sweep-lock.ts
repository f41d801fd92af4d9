// At most one sweep at a time across all processes (SPEC 5): a Redis lock
// taken with SET NX PX and a random token, renewed while the sweep runs,
// released only by its holder (compare-and-delete). A process that finds
// it held skips its sweep: the next scheduled one will come.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** The sweep lock's key under the configured prefix (redis.prefix). */
export function sweepLockKey(prefix: string): string {
  return `${prefix}:reconciler:sweep-lock`;
}

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export class SweepLockLostError extends Error {
  override readonly name = 'SweepLockLostError';
}

/**
 * Runs `fn` holding the lock, or returns 'skipped' when another process
 * holds it. `fn`'s signal aborts when the lock cannot be renewed, so the
 * sweep stops before its next action rather than race a second sweep.
 */
export async function withSweepLock<T>(
  redis: Redis,
  key: string,
  ttlMs: number,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T | 'skipped'> {
  const token = randomUUID();
  const taken = await redis.set(key, token, 'PX', ttlMs, 'NX');
  if (taken !== 'OK') return 'skipped';

  const lost = new AbortController();
  const renew = async (): Promise<void> => {
    try {
      const renewed = await redis.eval(RENEW, 1, key, token, String(ttlMs));
      if (renewed !== 1) lost.abort(new SweepLockLostError(`the sweep lock ${key} was lost`));
    } catch (err) {
      lost.abort(new SweepLockLostError(`the sweep lock ${key} could not be renewed`, { cause: err }));
    }
  };
  const timer = setInterval(() => void renew(), Math.max(1, Math.floor(ttlMs / 3)));
  try {
    return await fn(lost.signal);
  } finally {
    clearInterval(timer);
    await redis.eval(RELEASE, 1, key, token);
  }
}
