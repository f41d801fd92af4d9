// The retry policy of SPEC 4 at the job boundary: one function turns a
// handler's error into what BullMQ should do with it, one tells whether a
// failure is the job's last, and one computes the delay before the next
// attempt.
import { UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import { isClassified } from '../errors.js';
import { redactSecrets } from '../secrets/redact.js';

/**
 * Delay before retry `attemptsMade` (1 after the first failure): the base
 * doubled each time, times a jitter in [0.8, 1]. The jitter spreads
 * retries of jobs that failed together; kept narrow so each delay stays
 * longer than the one before.
 */
export function retryDelayMs(attemptsMade: number, baseMs: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, attemptsMade - 1);
  return Math.round(baseMs * 2 ** exponent * (0.8 + 0.2 * random()));
}

/** Delay before retrying a job that found its name locked (SPEC 3): not an attempt. */
export function lockWaitDelayMs(lockTtlMs: number, random: () => number = Math.random): number {
  const base = Math.min(2_000, Math.max(50, Math.floor(lockTtlMs / 10)));
  return Math.round(base * (0.5 + random()));
}

/** Whether this failure is the job's last: no retry (Permanent, bad data) or its last attempt (SPEC 4). */
export function failsForGood(job: Job, err: unknown): boolean {
  return err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/** Bad job data: fails at once, naming the fields (SPEC 1). */
export class BadJobDataError extends UnrecoverableError {
  constructor(message: string) {
    super(message);
    this.name = 'BadJobDataError';
  }
}

/**
 * What the worker throws for a handler's error: Permanent becomes
 * UnrecoverableError (no retry), anything else stays retryable. The
 * message is the operator-readable reason, with secrets redacted, since
 * it becomes the job's failedReason.
 */
export function toJobError(err: unknown): Error {
  if (err instanceof UnrecoverableError) return err;
  if (isClassified(err)) {
    const text = redactSecrets(err.reason === err.message ? err.message : `${err.reason} (${err.message})`);
    if (err.errorClass === 'Permanent') return new UnrecoverableError(text);
    const retryable = new Error(text);
    retryable.name = err.name;
    return retryable;
  }
  const message = err instanceof Error ? err.message : String(err);
  return new Error(redactSecrets(message));
}
