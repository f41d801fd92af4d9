// The BullMQ processor: one job's way through validation (SPEC 1), the
// generation check (SPEC 2), the name lock (SPEC 3), the handler with
// progress, log and abort wiring, the retry policy (SPEC 4), and the
// job's webhook event (SPEC 27), added before BullMQ records its end.
// The attempt itself is job-run.ts; here the processor's own state: the
// jobs running, their cancellation, the end of taking jobs at shutdown.
import { DelayedError, WaitingError } from 'bullmq';
import type { Job } from 'bullmq';
import type { Logger } from '../log.js';
import type { LeaseMetrics } from '../metrics.js';
import { LazyAbortController } from '../queue/lazy-abort.js';
import { redactSecrets } from '../secrets/redact.js';
import { logJobEnd } from './job-end-log.js';
import { runJob } from './job-run.js';
import type { JobRunOptions } from './job-run.js';
import { isSuperseded } from './name-claim.js';
import { failsForGood } from './retry.js';
import { expiredAtOf } from './webhook-events.js';
import type { JobEvents } from './webhook-events.js';

export interface ProcessorOptions extends JobRunOptions {
  /** Webhook events of the jobs' ends (SPEC 27); none when absent. */
  events?: JobEvents;
  /** Told when an event of a job that failed for good could not be added. */
  logger?: Logger;
  /** The lag from a lease's expiresAt to its onExpiry job's end (SPEC 31). */
  leaseMetrics?: Pick<LeaseMetrics, 'leaseEnded'>;
}

/** An expired lease's delete or stop ended the VM: the lag since its expiresAt (SPEC 31). */
function noteLeaseEnd(options: Pick<ProcessorOptions, 'leaseMetrics'>, job: Job, result: unknown): void {
  const expiredAt = expiredAtOf(job);
  if (expiredAt === undefined || isSuperseded(result)) return;
  options.leaseMetrics?.leaseEnded(job.name, (Date.now() - Date.parse(expiredAt)) / 1000);
}

/**
 * BullMQ's processor for one worker, with the cancellation BullMQ's
 * cancelJob/cancelAllJobs would give: it takes two parameters, so BullMQ
 * makes no AbortController of its own for each job (it does for a
 * processor that takes a third, the signal). The processor's controller
 * is the job's one signal, also aborted when the name lock is lost.
 */
export interface JobProcessor {
  (job: Job, token?: string): Promise<unknown>;
  /** Aborts a running job's signal (its BullMQ lock could not be renewed, SPEC 3); false when it is not running here. */
  cancel(jobId: string, reason: string): boolean;
  /** Aborts the signal of every job running here (shutdown past its grace period, SPEC 1). */
  cancelAll(reason: string): void;
  /** How many jobs run here now. */
  runningCount(): number;
  /**
   * The worker's shutdown began: a job handed over from now on goes back
   * to wait untouched, for another worker (SPEC 1; BullMQ 6.7 may still
   * take one after its close began, docs/decisions.md).
   */
  stopTaking(): void;
}

/**
 * Back to the wait list as it was: no attempt counted, no step run, no
 * name lock taken. If Redis refuses the move, the job's BullMQ lock runs
 * out and the stalled check puts it back.
 */
async function giveBack(job: Job, token: string | undefined): Promise<never> {
  await job.moveToWait(token).catch(() => undefined);
  throw new WaitingError();
}

async function failedForGood({ events, logger }: Pick<ProcessorOptions, 'events' | 'logger'>, job: Job, err: unknown): Promise<void> {
  const reason = redactSecrets(err instanceof Error ? err.message : String(err));
  // The job fails whatever happens here; an event that cannot be added is told, not thrown.
  await events?.failedForGood(job, reason).catch((addError: unknown) => {
    logger?.warn({ jobId: job.id, err: addError }, 'could not add the job.failed webhook');
  });
}

export function createProcessor(options: ProcessorOptions): JobProcessor {
  const { deps, events } = options;
  const running = new Map<string, LazyAbortController>();
  let stopping = false;

  // The job's one signal: aborted by cancel/cancelAll, or when its name's lock is lost.
  const processJob = async (job: Job, token?: string): Promise<unknown> => {
    if (stopping) return giveBack(job, token);
    const aborter = new LazyAbortController();
    // Stryker disable next-line StringLiteral: a job taken from a queue always has an id; ?? '' is for the type checker
    const id = job.id ?? '';
    running.set(id, aborter);
    const started = Date.now();
    try {
      let result: unknown;
      try {
        result = await runJob(job, token, aborter, options);
      } catch (err) {
        if (events && !(err instanceof DelayedError) && failsForGood(job, err)) await failedForGood(options, job, err);
        throw err;
      }
      // In Redis before BullMQ marks the job completed: a crash in between
      // runs the job again, and its event's id makes the second add a no-op.
      // An add that fails fails the attempt, so the job is retried.
      await events?.completed(job, result);
      noteLeaseEnd(options, job, result);
      logJobEnd(deps.logger, job, { outcome: isSuperseded(result) ? 'superseded' : 'completed', durationMs: Date.now() - started });
      return result;
    } catch (err) {
      if (!(err instanceof DelayedError || err instanceof WaitingError)) {
        const reason = err instanceof Error ? err.message : String(err);
        logJobEnd(deps.logger, job, { outcome: failsForGood(job, err) ? 'failed' : 'retried', durationMs: Date.now() - started, reason });
      }
      throw err;
    } finally {
      running.delete(id);
    }
  };
  return Object.assign(processJob, {
    cancel(jobId: string, reason: string): boolean {
      const aborter = running.get(jobId);
      aborter?.abort(new Error(reason));
      return aborter !== undefined;
    },
    cancelAll(reason: string): void {
      for (const aborter of running.values()) aborter.abort(new Error(reason));
    },
    runningCount(): number {
      return running.size;
    },
    stopTaking(): void {
      stopping = true;
    },
  });
}
