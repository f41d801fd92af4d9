// The BullMQ processor: one job's way through validation (SPEC 1), the
// generation check (SPEC 2), the name lock (SPEC 3), the handler with
// progress, log and abort wiring, and the retry policy (SPEC 4).
import { DelayedError, UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import type { JobLimits, JobName } from '../../jobs/schema.js';
import type { AnyJobDefinition, JobContext, JobDeps } from '../../jobs/types.js';
import type { JobMetrics } from '../metrics.js';
import type { CreateStep } from '../provider/types.js';
import { redactSecrets } from '../secrets.js';
import { holdLock } from './name-lock.js';
import type { HeldLock, NameLocks } from './name-lock.js';
import type { DesiredStateRegistry } from './registry.js';
import { BadJobDataError, lockWaitDelayMs, toJobError } from './retry.js';

export interface ProcessorOptions {
  definitions: ReadonlyMap<JobName, AnyJobDefinition>;
  deps: JobDeps;
  limits: JobLimits;
  registry: Pick<DesiredStateRegistry, 'get'>;
  locks: NameLocks;
  lockTtlMs: number;
  metrics?: JobMetrics;
}

export interface SupersededResult {
  superseded: true;
  generation: number;
  currentGeneration: number;
}

export type JobProcessor = (job: Job, token?: string, signal?: AbortSignal) => Promise<unknown>;

/** Results are stored in Redis and shown on Bull Board: no secret in them. */
function redactResult(result: unknown): unknown {
  if (result === undefined) return undefined;
  return JSON.parse(redactSecrets(JSON.stringify(result))) as unknown;
}

function generationOf(data: unknown): number {
  const generation = (data as { generation?: unknown }).generation;
  return typeof generation === 'number' ? generation : 0;
}

function jobContext(job: Job, signal: AbortSignal, held: HeldLock | undefined): JobContext {
  const log = async (line: string): Promise<void> => {
    await job.log(redactSecrets(line));
  };
  return {
    jobId: job.id ?? '',
    signal,
    log,
    progress: async (step: CreateStep) => {
      await job.updateProgress({ step });
      await log(`step: ${step}`);
    },
    beforeWrite: () => {
      signal.throwIfAborted();
      held?.check();
    },
  };
}

export function createProcessor(options: ProcessorOptions): JobProcessor {
  const { definitions, deps, limits, registry, locks, lockTtlMs, metrics } = options;

  const supersededResult = async (definition: AnyJobDefinition, data: unknown, name: string): Promise<SupersededResult | undefined> => {
    if (!definition.superseded) return undefined;
    const record = await registry.get(name);
    if (!definition.superseded(data, record)) return undefined;
    return { superseded: true, generation: generationOf(data), currentGeneration: record?.generation ?? 0 };
  };

  return async (job, token, bullSignal) => {
    const started = Date.now();
    const definition = definitions.get(job.name as JobName);
    if (definition === undefined) throw new BadJobDataError(`no handler for job "${job.name}"`);
    const checked = definition.validate(job.data, limits);
    if (!checked.ok) throw new BadJobDataError(`bad job data: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
    const data = checked.value;
    const finish = (outcome: string): void => metrics?.jobFinished(definition.name, outcome, (Date.now() - started) / 1000);

    const name = definition.lockedName?.(data);
    let held: HeldLock | undefined;
    if (name !== undefined) {
      // Checked before waiting on the lock and again once it is ours: the
      // newest intent may have arrived while this job waited.
      const early = await supersededResult(definition, data, name);
      if (early) {
        finish('superseded');
        return early;
      }
      const lockToken = await locks.tryAcquire(name, lockTtlMs);
      if (lockToken === undefined) {
        metrics?.lockWaited(definition.name);
        await job.moveToDelayed(Date.now() + lockWaitDelayMs(lockTtlMs), token);
        throw new DelayedError();
      }
      held = holdLock(locks, name, lockToken, lockTtlMs);
    }

    try {
      if (name !== undefined) {
        const late = await supersededResult(definition, data, name);
        if (late) {
          finish('superseded');
          return late;
        }
      }
      const signals = [bullSignal, held?.lost].filter((s): s is AbortSignal => s !== undefined);
      const ctx = jobContext(job, AbortSignal.any(signals), held);
      const result = redactResult(await definition.handler(data, deps, ctx));
      finish('completed');
      return result;
    } catch (err) {
      const jobError = toJobError(err);
      await job.log(`attempt ${job.attemptsMade + 1} failed: ${jobError.message}`).catch(() => undefined);
      finish(jobError instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1) ? 'failed' : 'retried');
      throw jobError;
    } finally {
      await held?.release();
    }
  };
}
