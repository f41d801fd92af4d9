// One log line for each attempt that ends, so a log at the default level
// tells what became of every VM job: its final end ("job ended":
// completed, superseded or failed) and each failed attempt that will be
// retried ("job attempt failed, will retry"). A wait for the name lock or
// a job given back at shutdown is no end and gets no line.
import type { Job } from 'bullmq';
import type { Logger } from '../log.js';
import { redactSecrets } from '../secrets/redact.js';

export type JobEndOutcome = 'completed' | 'superseded' | 'failed' | 'retried';

export interface JobEnd {
  outcome: JobEndOutcome;
  durationMs: number;
  /** Why the attempt failed (failed, retried). */
  reason?: string;
}

function vmNameOf(data: unknown): string | undefined {
  const name = typeof data === 'object' && data !== null ? (data as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

export function logJobEnd(logger: Logger, job: Job, end: JobEnd): void {
  const vm = vmNameOf(job.data);
  const fields = {
    jobId: job.id,
    job: job.name,
    ...(vm === undefined ? {} : { vm }),
    outcome: end.outcome,
    durationMs: end.durationMs,
    attempt: job.attemptsMade + 1,
    attempts: job.opts.attempts ?? 1,
    ...(end.reason === undefined ? {} : { reason: redactSecrets(end.reason) }),
  };
  if (end.outcome === 'retried') logger.info(fields, 'job attempt failed, will retry');
  // At warn: a log kept at warn still shows every job that failed.
  else if (end.outcome === 'failed') logger.warn(fields, 'job ended');
  // The scheduled jobs of no VM (health every minute, the sweep) would
  // bury the VMs' lines: their successes are at debug.
  else if (vm === undefined) logger.debug(fields, 'job ended');
  else logger.info(fields, 'job ended');
}
