// The per-name lock of SPEC 3: a Redis key holding a random token with a
// TTL. Only the token's holder can renew or release it (compare-and-set
// in Lua), so a holder whose lock expired can never free someone else's.
// A job takes the lock and reads its name's desired record in one call,
// and writes its last-known state and releases in one call, both batched
// with the other jobs' calls of the same tick (SPEC 21: the round trips
// are what a no-op job costs).
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { headFrom, lastKnownArgs } from './registry.js';
import type { DesiredHead, LastKnownWrite } from '../desired-state.js';
import type { Aborter } from './lazy-abort.js';
import { LuaScript, ScriptBatch } from '../redis-script.js';
import { JOB_LOCK_OPS } from './registry-scripts.js';
import { RenewalTimer } from './renewal-timer.js';

const RENEW = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`);

const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

/** What tryHold answers: fn's value, or ran: false when someone else held the lock. */
export type HoldOutcome<T> = { ran: true; value: T } | { ran: false };

/**
 * What tryAcquireReading found: the head of the name's record as it was
 * when the lock was taken (`taken`), found held by someone else (`held`),
 * or left alone because the record's generation is newer than the job's
 * (`older`).
 */
export type LockClaim =
  | { outcome: 'taken'; token: string; record: DesiredHead | undefined }
  | { outcome: 'held' | 'older'; record: DesiredHead | undefined };

/** What claim answers: a LockClaim whose taken lock is held (renewed, released through its methods), its token kept in here. */
export type NameClaim =
  | { outcome: 'taken'; held: HeldLock; record: DesiredHead | undefined }
  | { outcome: 'held' | 'older'; record: DesiredHead | undefined };

export class NameLocks {
  private readonly jobOps: ScriptBatch;
  /** The one timer that renews every lock held through holdLock. */
  readonly renewals = new RenewalTimer();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.jobOps = new ScriptBatch(redis, JOB_LOCK_OPS);
  }

  /**
   * Runs fn holding the name's lock (renewed while it runs, released when
   * it ends), or answers ran: false when someone else holds the name. fn's
   * signal aborts when the lock is lost. The token stays in here.
   */
  tryHold<T>(name: string, ttlMs: number, fn: (lost: AbortSignal) => Promise<T>): Promise<HoldOutcome<T>> {
    return tryHoldKey(this.redis, keys.nameLock(this.prefix, name), ttlMs, `the lock of ${name}`, fn);
  }

  /** The token when taken, undefined when someone else holds the name (tests hold names by hand with it). */
  async tryAcquire(name: string, ttlMs: number): Promise<string | undefined> {
    const token = randomUUID();
    const ok = await this.redis.set(keys.nameLock(this.prefix, name), token, 'PX', ttlMs, 'NX');
    return ok === 'OK' ? token : undefined;
  }

  /**
   * tryAcquire and a read of the name's record head (what superseded()
   * looks at) in one atomic call. With a generation, the lock is not taken
   * when the record's is newer. The worker takes its names through claim,
   * which keeps the token in here; this answer's token is for the tests
   * that call the scripts themselves.
   */
  async tryAcquireReading(name: string, ttlMs: number, generation?: number): Promise<LockClaim> {
    const token = randomUUID();
    const reply = await this.jobOps.call(this.jobKeys(name), ['acquire', token, ttlMs, generation ?? '']);
    // Stryker disable next-line ArrayDeclaration: any fallback without 'taken', 'held' or 'older' ends in the unexpected-answer error below
    const [outcome, state, uid, current] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const record = headFrom(name, state, uid, current);
    if (outcome === 'taken') return { outcome, token, record };
    if (outcome === 'held' || outcome === 'older') return { outcome, record };
    throw new Error(`unexpected answer from the lock script: ${JSON.stringify(reply)}`);
  }

  /**
   * How a job takes its name (SPEC 3): tryAcquireReading, and a lock taken
   * kept renewed by holdLock, `controller` aborted when it is lost. The
   * token stays in this file: the held lock's methods use it.
   */
  async claim(name: string, ttlMs: number, generation: number | undefined, controller: Aborter): Promise<NameClaim> {
    const claim = await this.tryAcquireReading(name, ttlMs, generation);
    if (claim.outcome !== 'taken') return claim;
    return { outcome: 'taken', held: holdLock(this, name, claim.token, ttlMs, controller), record: claim.record };
  }

  async renew(name: string, token: string, ttlMs: number): Promise<boolean> {
    return (await RENEW.run(this.redis, [keys.nameLock(this.prefix, name)], [token, ttlMs])) === 1;
  }

  /** Frees the name if the token still holds it; batched with the other jobs' lock calls. */
  async release(name: string, token: string): Promise<boolean> {
    return this.released(await this.jobOps.call(this.jobKeys(name), ['release', token, '', '']));
  }

  /**
   * The registry's recordLastKnown, then release, in one call: the write
   * is made whether or not the token still holds the lock, as a separate
   * write would be. Resolves whether the lock was released.
   */
  async releaseWriting(name: string, token: string, write: LastKnownWrite): Promise<boolean> {
    return this.released(await this.jobOps.call(this.jobKeys(name), ['release', token, ...lastKnownArgs(write)]));
  }

  async isHeld(name: string): Promise<boolean> {
    return (await this.redis.exists(keys.nameLock(this.prefix, name))) === 1;
  }

  private jobKeys(name: string): [string, string] {
    return [keys.nameLock(this.prefix, name), keys.desired(this.prefix, name)];
  }

  private released(answer: unknown): boolean {
    return Array.isArray(answer) && answer[1] === 1;
  }
}

export interface HeldLock {
  /** Aborted when the lock is lost (renewal refused, or not renewed within its TTL), or when its controller's owner aborts it. */
  readonly lost: AbortSignal;
  /** Throws when the lock is lost or was last renewed a whole TTL ago (a starved timer). */
  check(): void;
  /** Stops renewing and releases; a failure is ignored (the lock expires by itself). */
  release(): Promise<void>;
  /** Stops renewing, writes the job's last-known state and releases, in one call; rejects when that call fails. */
  releaseWriting(write: LastKnownWrite): Promise<void>;
}

/**
 * Keeps a taken lock alive, renewing every third of its TTL. When a
 * renewal is refused, or none succeeds for a whole TTL (Redis down),
 * the holder may no longer assume it is alone: `lost` aborts. A job
 * passes the controller its handler's signal comes from, so that one
 * signal also tells of a lost lock (one signal per job, not three).
 */
export function holdLock(locks: NameLocks, name: string, token: string, ttlMs: number, controller: Aborter = new AbortController()): HeldLock {
  const renewal = keepRenewed(() => locks.renew(name, token, ttlMs), `the lock of ${name}`, ttlMs, controller, ttlMs, locks.renewals);
  return {
    get lost() {
      return renewal.lost;
    },
    check: () => renewal.check(),
    async release() {
      renewal.stop();
      await locks.release(name, token).catch(() => undefined); // it expires by itself
    },
    async releaseWriting(write) {
      renewal.stop();
      await locks.releaseWriting(name, token, write);
    },
  };
}

/**
 * Runs fn holding the lock at `key`: taken with SET NX PX and a random
 * token, renewed as holdLock renews, released by compare-and-delete, so a
 * holder whose lock expired never frees another's. ran: false when it is
 * held. The name locks' tryHold and the sweep lock (SPEC 5) are this.
 * Unlike holdLock, `lost` aborts at the first renewal that fails in Redis:
 * fn has no check() before its steps, only the signal, and a signal that
 * waited a whole TTL would abort only after the key may have expired and a
 * second holder (a second sweep) started; stopping early costs a sweep
 * nothing, the next scheduled one comes.
 */
export async function tryHoldKey<T>(redis: RedisClient, key: string, ttlMs: number, what: string, fn: (lost: AbortSignal) => Promise<T>): Promise<HoldOutcome<T>> {
  const token = randomUUID();
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return { ran: false };
  const renew = async (): Promise<boolean> => (await RENEW.run(redis, [key], [token, ttlMs])) === 1;
  const renewal = keepRenewed(renew, what, ttlMs, new AbortController(), 0, new RenewalTimer());
  try {
    return { ran: true, value: await fn(renewal.lost) };
  } finally {
    renewal.stop();
    await RELEASE.run(redis, [key], [token]).catch(() => undefined); // it expires by itself
  }
}

interface Renewal {
  readonly lost: AbortSignal;
  check(): void;
  stop(): void;
}

/**
 * The renewal loop of a held lock: `renew` every third of the TTL, on the
 * given renewal timer (renewal-timer.ts; NameLocks's one for holdLock). `lost`
 * aborts when a renewal is refused, or when one fails in Redis and none
 * succeeded for `patienceMs` (holdLock: the TTL; tryHoldKey: 0, at once).
 */
function keepRenewed(renew: () => Promise<boolean>, what: string, ttlMs: number, controller: Aborter, patienceMs: number, timer: RenewalTimer): Renewal {
  let lastRenewed = performance.now();
  let stopped = false;
  let lostWith: Error | undefined;
  const lose = (why: string): void => {
    if (lostWith !== undefined) return;
    lostWith = new Error(`lost ${what}: ${why}`);
    controller.abort(lostWith);
  };
  const tick = async (): Promise<void> => {
    try {
      const ok = await renew();
      if (stopped) return;
      if (ok) lastRenewed = performance.now();
      else lose('it expired and was not ours any more');
    } catch {
      if (stopped) return;
      if (performance.now() - lastRenewed >= patienceMs) lose(patienceMs === 0 ? 'a renewal failed in Redis' : 'it could not be renewed within its TTL');
    }
  };
  const entry = timer.add(Math.max(10, Math.floor(ttlMs / 3)), () => void tick());
  return {
    get lost() {
      return controller.signal;
    },
    check() {
      if (lostWith === undefined && performance.now() - lastRenewed >= ttlMs) lose('it was not renewed within its TTL');
      if (lostWith !== undefined) throw lostWith;
    },
    stop() {
      stopped = true;
      timer.delete(entry);
    },
  };
}
