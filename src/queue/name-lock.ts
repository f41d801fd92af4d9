// The per-name lock of SPEC 3: a Redis key holding a random token with a
// TTL. Only the token's holder can renew or release it (compare-and-set
// in Lua), so a holder whose lock expired can never free someone else's.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keys } from './keys.js';

const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class NameLocks {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** The token when taken, undefined when someone else holds the name. */
  async tryAcquire(name: string, ttlMs: number): Promise<string | undefined> {
    const token = randomUUID();
    const ok = await this.redis.set(keys.nameLock(this.prefix, name), token, 'PX', ttlMs, 'NX');
    return ok === 'OK' ? token : undefined;
  }

  async renew(name: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, keys.nameLock(this.prefix, name), token, ttlMs)) === 1;
  }

  async release(name: string, token: string): Promise<boolean> {
    return (await this.redis.eval(RELEASE, 1, keys.nameLock(this.prefix, name), token)) === 1;
  }

  async isHeld(name: string): Promise<boolean> {
    return (await this.redis.exists(keys.nameLock(this.prefix, name))) === 1;
  }
}

export interface HeldLock {
  /** Aborted when the lock is lost (renewal refused, or not renewed within its TTL). */
  readonly lost: AbortSignal;
  /** Throws when the lock is lost or was last renewed a whole TTL ago (a starved timer). */
  check(): void;
  release(): Promise<void>;
}

/**
 * Keeps a taken lock alive, renewing every third of its TTL. When a
 * renewal is refused, or none succeeds for a whole TTL (Redis down),
 * the holder may no longer assume it is alone: `lost` aborts.
 */
export function holdLock(locks: NameLocks, name: string, token: string, ttlMs: number): HeldLock {
  const controller = new AbortController();
  let lastRenewed = Date.now();
  let stopped = false;
  const lose = (why: string): void => {
    if (!controller.signal.aborted) controller.abort(new Error(`lost the lock of ${name}: ${why}`));
  };
  const renew = async (): Promise<void> => {
    try {
      const ok = await locks.renew(name, token, ttlMs);
      if (stopped) return;
      if (ok) lastRenewed = Date.now();
      else lose('it expired and was not ours any more');
    } catch {
      if (Date.now() - lastRenewed >= ttlMs) lose('it could not be renewed within its TTL');
    }
  };
  const timer = setInterval(() => void renew(), Math.max(10, Math.floor(ttlMs / 3)));
  timer.unref();
  return {
    lost: controller.signal,
    check() {
      if (!controller.signal.aborted && Date.now() - lastRenewed >= ttlMs) lose('it was not renewed within its TTL');
      if (controller.signal.aborted) throw controller.signal.reason;
    },
    async release() {
      stopped = true;
      clearInterval(timer);
      await locks.release(name, token).catch(() => undefined); // it expires by itself
    },
  };
}
