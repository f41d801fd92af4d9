// The BullMQ processor: one job's way through validation (SPEC 1), the
// generation check (SPEC 2), the name lock (SPEC 3), the handler with
// progress, log and abort wiring, the retry policy (SPEC 4), and the
// job's webhook event (SPEC 27), added before BullMQ records its end.
import { DelayedError, UnrecoverableError, WaitingError } from 'bullmq';
import type { Job } from 'bullmq';
import type { JobLimits, JobName } from '../job-table/schema.js';
import type { AnyJobDefinition, JobContext, JobDeps } from '../../jobs/types.js';
import type { Logger } from '../log.js';
import type { JobMetrics } from '../metrics.js';
import type { CreateStep } from '../provider/types.js';
import { createStepPercent } from '../job-table/result.schema.js';
import { redactSecrets } from '../secrets/redact.js';
import { LazyAbortController } from '../queue/lazy-abort.js';
import { holdLock } from '../queue/name-lock.js';
import type { HeldLock, NameLocks } from '../queue/name-lock.js';
import type { DesiredHead, LastKnownWrite } from '../desired-state.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import { logJobEnd } from './job-end-log.js';
import { BadJobDataError, lockWaitDelayMs, toJobError } from './retry.js';
import type { JobEvents } from './webhook-events.js';

export interface ProcessorOptions {
  definitions: ReadonlyMap<JobName, AnyJobDefinition>;
  deps: JobDeps;
  limits: JobLimits;
  /**
   * Last-known writes of names the job does not hold (check); a held
   * name's goes with its lock's release. And a Permanent failure of a
   * definition with recordsPermanentFailure (SPEC 2).
   */
  registry: Pick<DesiredStateRegistry, 'recordLastKnown' | 'recordFailure'>;
  locks: NameLocks;
  lockTtlMs: number;
  metrics?: JobMetrics;
  /** Webhook events of the jobs' ends (SPEC 27); none when absent. */
  events?: JobEvents;
  /** Told when an event of a job that failed for good could not be added. */
  logger?: Logger;
}

interface SupersededResult {
  superseded: true;
  generation: number;
  currentGeneration: number;
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
 * Results are stored in Redis and shown on Bull Board: no secret in them.
 * BullMQ stores JSON.stringify(result), so a result whose JSON has nothing
 * to redact is returned as it is, without parsing that JSON back.
 */
function redactResult(result: unknown): unknown {
  if (result === undefined) return undefined;
  const json = JSON.stringify(result);
  const redacted = redactSecrets(json);
  return redacted === json ? result : (JSON.parse(redacted) as unknown);
}

/** Whether this failure is the job's last: no retry (Permanent, bad data) or its last attempt (SPEC 4). */
function failsForGood(job: Job, err: unknown): boolean {
  return err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

function isSuperseded(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as Partial<SupersededResult>).superseded === true;
}

function generationOf(data: unknown): number {
  const generation = (data as { generation?: unknown }).generation;
  return typeof generation === 'number' ? generation : 0;
}

/**
 * The job's own logger: its id, job name and VM name on every line the
 * provider writes for it. The VM name is `vm`: pino writes the logger's
 * own `name` on every line, and a second `name` key would repeat it.
 */
function jobLogger(processLogger: Logger, job: Job, vm: string | undefined): Logger {
  return processLogger.child({ jobId: job.id, job: job.name, ...(vm === undefined ? {} : { vm }) });
}

function jobContext(
  job: Job,
  makeLogger: () => Logger,
  aborter: LazyAbortController,
  held: HeldLock | undefined,
  lastKnown: Map<string, LastKnownWrite>,
): JobContext {
  const log = async (line: string): Promise<void> => {
    await job.log(redactSecrets(line));
  };
  let logger: Logger | undefined;
  return {
    // Stryker disable next-line StringLiteral: a job taken from a queue always has an id; ?? '' is for the type checker
    jobId: job.id ?? '',
    // A pino child costs microseconds; made when the handler first logs (SPEC 21).
    get logger() {
      return (logger ??= makeLogger());
    },
    // Made when the handler first asks (lazy-abort.ts).
    get signal() {
      return aborter.signal;
    },
    log,
    progress: async (step: CreateStep) => {
      // A number for Bull Board's bar; the step itself in the job's data and its log.
      const waitForAddress = (job.data as { waitForAddress?: unknown }).waitForAddress !== false;
      await Promise.all([job.updateData({ ...(job.data as object), step }), job.updateProgress(createStepPercent(step, waitForAddress))]);
      await log(`step: ${step}`);
    },
    beforeWrite: () => {
      aborter.throwIfAborted();
      held?.check();
    },
    setLastKnown: (name, seen, ifState) => {
      // Stryker disable next-line ConditionalExpression: { ifState: undefined } is written exactly as no ifState
      lastKnown.set(name, ifState === undefined ? { lastKnown: seen } : { lastKnown: seen, ifState });
    },
  };
}

export function createProcessor(options: ProcessorOptions): JobProcessor {
  const { definitions, deps, limits, registry, locks, lockTtlMs, metrics, events } = options;

  const running = new Map<string, LazyAbortController>();

  const run = async (job: Job, token: string | undefined, aborter: LazyAbortController): Promise<unknown> => {
    const started = Date.now();
    const definition = definitions.get(job.name as JobName);
    if (definition === undefined) throw new BadJobDataError(`no handler for job "${job.name}"`);
    const checked = definition.validate(job.data, limits);
    if (!checked.ok) throw new BadJobDataError(`bad job data: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
    const data = checked.value;
    const finish = (outcome: string): void => metrics?.jobFinished(definition.name, outcome, (Date.now() - started) / 1000);
    const supersededBy = (record: DesiredHead | undefined): SupersededResult | undefined =>
      definition.superseded?.(data, record) ? { superseded: true, generation: generationOf(data), currentGeneration: record?.generation ?? 0 } : undefined;

    const name = definition.lockedName?.(data);
    let held: HeldLock | undefined;
    let record: DesiredHead | undefined;
    if (name !== undefined) {
      // The lock and the name's record in one call. A job the record makes
      // moot ends without waiting for the lock; one whose generation is
      // older but is not moot (a delete of a foreign uid) takes it anyway.
      let claim = await locks.tryAcquireReading(name, lockTtlMs, definition.superseded ? generationOf(data) : undefined);
      if (claim.outcome !== 'taken') {
        const early = supersededBy(claim.record);
        if (early) {
          finish('superseded');
          return early;
        }
        if (claim.outcome === 'older') claim = await locks.tryAcquireReading(name, lockTtlMs);
      }
      if (claim.outcome !== 'taken') {
        metrics?.lockWaited(definition.name);
        await job.moveToDelayed(Date.now() + lockWaitDelayMs(lockTtlMs), token);
        throw new DelayedError();
      }
      held = holdLock(locks, name, claim.token, lockTtlMs, aborter);
      record = claim.record;
    }

    // What the handler left as last-known states, written once it has
    // ended: the held name's with the lock's release, in one call.
    const lastKnown = new Map<string, LastKnownWrite>();
    let settled: Promise<void> | undefined;
    const settle = (): Promise<void> =>
      (settled ??= (async () => {
        const own = held && name !== undefined ? lastKnown.get(name) : undefined;
        for (const [other, write] of lastKnown) if (write !== own) await registry.recordLastKnown(other, write.lastKnown, write.ifState);
        if (held) await (own ? held.releaseWriting(own) : held.release());
      })());

    try {
      // Read under the lock: the newest intent may have arrived while this job waited.
      const late = held ? supersededBy(record) : undefined;
      if (late) {
        finish('superseded');
        return late;
      }
      const ctx = jobContext(job, () => jobLogger(deps.logger, job, name), aborter, held, lastKnown);
      const result = redactResult(await definition.handler(data, deps, ctx));
      await settle(); // a failed last-known write fails the attempt, as it did inside the handler
      finish('completed');
      return result;
    } catch (err) {
      const jobError = toJobError(err);
      await job.log(`attempt ${job.attemptsMade + 1} failed: ${jobError.message}`).catch(() => undefined);
      if (jobError instanceof UnrecoverableError && definition.recordsPermanentFailure && held && name !== undefined) {
        // SPEC 2: the reconciler re-creates it no more until a new create arrives.
        // Stryker disable next-line StringLiteral: a job taken from a queue always has an id; ?? '' is for the type checker
        const failure = { reason: jobError.message, jobId: job.id ?? '', generation: generationOf(data), at: new Date().toISOString() };
        await registry.recordFailure(name, failure).catch(() => undefined);
      }
      finish(failsForGood(job, jobError) ? 'failed' : 'retried');
      throw jobError;
    } finally {
      await settle().catch(() => undefined);
    }
  };

  let stopping = false;
  // Back to the wait list as it was: no attempt counted, no step run, no
  // name lock taken. If Redis refuses the move, the job's BullMQ lock runs
  // out and the stalled check puts it back.
  const giveBack = async (job: Job, token: string | undefined): Promise<never> => {
    await job.moveToWait(token).catch(() => undefined);
    throw new WaitingError();
  };

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
        result = await run(job, token, aborter);
      } catch (err) {
        if (events && !(err instanceof DelayedError) && failsForGood(job, err)) await failedForGood(job, err);
        throw err;
      }
      // In Redis before BullMQ marks the job completed: a crash in between
      // runs the job again, and its event's id makes the second add a no-op.
      // An add that fails fails the attempt, so the job is retried.
      await events?.completed(job, result);
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
  const failedForGood = async (job: Job, err: unknown): Promise<void> => {
    const reason = redactSecrets(err instanceof Error ? err.message : String(err));
    // The job fails whatever happens here; an event that cannot be added is told, not thrown.
    await events?.failedForGood(job, reason).catch((addError: unknown) => {
      options.logger?.warn({ jobId: job.id, err: addError }, 'could not add the job.failed webhook');
    });
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
