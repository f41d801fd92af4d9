// A job's claim of its name before its handler runs (SPEC 2, 3): the
// name's lock and its desired record read in one call (NameLocks.claim).
// A job the record makes moot ends superseded, before the lock or under
// it; a name held by another job puts this one back to delayed, which
// costs no attempt.
import { DelayedError } from 'bullmq';
import type { Job } from 'bullmq';
import type { AnyJobDefinition } from '../../jobs/types.js';
import type { DesiredHead } from '../desired-state.js';
import type { JobMetrics } from '../metrics.js';
import type { Aborter } from '../queue/lazy-abort.js';
import type { HeldLock, NameLocks } from '../queue/name-lock.js';
import { lockWaitDelayMs } from './retry.js';

export interface SupersededResult {
  superseded: true;
  generation: number;
  currentGeneration: number;
}

/** The name a job holds while its handler runs, with its lock. */
export interface HeldName {
  name: string;
  lock: HeldLock;
}

/** The claim's end: the job is moot (its result), or it runs holding its name (none for a job that locks no name). */
export type ClaimOutcome = { superseded: SupersededResult } | { held: HeldName | undefined };

export interface ClaimOptions {
  locks: NameLocks;
  lockTtlMs: number;
  metrics?: JobMetrics;
}

export function isSuperseded(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as Partial<SupersededResult>).superseded === true;
}

/** The job's generation; 0 for a job that carries none. */
export function generationOf(data: unknown): number {
  const generation = (data as { generation?: unknown }).generation;
  return typeof generation === 'number' ? generation : 0;
}

/**
 * Claims the name of a job checked against its definition. `aborter` is
 * the job's one signal: it also aborts when the lock is lost. Throws
 * DelayedError once the job is moved to delayed (the name is held).
 */
export async function claimName(job: Job, token: string | undefined, definition: AnyJobDefinition, data: unknown, aborter: Aborter, options: ClaimOptions): Promise<ClaimOutcome> {
  const name = definition.lockedName?.(data);
  if (name === undefined) return { held: undefined };
  const { locks, lockTtlMs, metrics } = options;
  const moot = (record: DesiredHead | undefined): SupersededResult | undefined =>
    definition.superseded?.(data, record) ? { superseded: true, generation: generationOf(data), currentGeneration: record?.generation ?? 0 } : undefined;
  // A job the record makes moot ends without waiting for the lock; one
  // whose generation is older but is not moot (a delete of a foreign uid)
  // takes it anyway.
  let claim = await locks.claim(name, lockTtlMs, definition.superseded ? generationOf(data) : undefined, aborter);
  if (claim.outcome !== 'taken') {
    const early = moot(claim.record);
    if (early) return { superseded: early };
    if (claim.outcome === 'older') claim = await locks.claim(name, lockTtlMs, undefined, aborter);
  }
  if (claim.outcome !== 'taken') {
    metrics?.lockWaited(definition.name);
    await job.moveToDelayed(Date.now() + lockWaitDelayMs(lockTtlMs), token);
    throw new DelayedError();
  }
  // Read under the lock: the newest intent may have arrived while this job waited.
  const late = moot(claim.record);
  if (late) {
    await claim.held.release();
    return { superseded: late };
  }
  return { held: { name, lock: claim.held } };
}
