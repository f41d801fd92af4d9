// One attempt of a job (SPEC 1 to 4): its data checked against its
// definition (SPEC 1), its name claimed (name-claim.ts: the lock and
// supersession, SPEC 2, 3), its handler run with the job's context, its
// writes settled (job-settle.ts), its error turned into what BullMQ does
// with it (retry.ts, SPEC 4); each outcome counted once.
import { DelayedError, UnrecoverableError } from 'bullmq';
import type { Job } from 'bullmq';
import type { JobLimits, JobName } from '../job-table/schema.js';
import type { AnyJobDefinition, JobDeps } from '../../jobs/types.js';
import type { LastKnownWrite } from '../desired-state.js';
import type { JobMetrics } from '../metrics.js';
import type { LazyAbortController } from '../queue/lazy-abort.js';
import type { NameLocks } from '../queue/name-lock.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import { redactSecrets } from '../secrets/redact.js';
import { jobContext, jobLogger } from './job-context.js';
import { afterPermanentFailure, recordPermanentFailure, settlement } from './job-settle.js';
import { claimName, generationOf } from './name-claim.js';
import { BadJobDataError, failsForGood, toJobError } from './retry.js';
import { jobCluster, type RecordedCluster } from './job-cluster.js';

export interface JobRunOptions {
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
  /**
   * SPEC 32, the several-clusters form only: a name's recorded cluster,
   * for a job whose data names none; absent (the one-cluster form): no read.
   */
  recordedCluster?: RecordedCluster;
  /**
   * SPEC 32, the several-clusters form only: when the job's cluster (the
   * first for none) was away in the last health, how long a job holding
   * its name waits before it tries again (not an attempt); undefined: not
   * away. A job of a cluster that cannot be reached holds no worker slot
   * for its polls, so the other clusters' jobs go on.
   */
  awayWaitMs?: (cluster: string | undefined) => Promise<number | undefined>;
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

/** The job's definition and its data checked by it; BadJobDataError (no retry) naming what is wrong. */
function checkedJob(job: Job, { definitions, limits }: Pick<JobRunOptions, 'definitions' | 'limits'>): { definition: AnyJobDefinition; data: unknown } {
  const definition = definitions.get(job.name as JobName);
  if (definition === undefined) throw new BadJobDataError(`no handler for job "${job.name}"`);
  const checked = definition.validate(job.data, limits);
  if (!checked.ok) throw new BadJobDataError(`bad job data: ${checked.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  return { definition, data: checked.value };
}

/** Resolves with the job's result (redacted), or a SupersededResult; rejects with the job's error, or DelayedError when its name is held. */
export async function runJob(job: Job, token: string | undefined, aborter: LazyAbortController, options: JobRunOptions): Promise<unknown> {
  const started = Date.now();
  const { definition, data } = checkedJob(job, options);
  const finish = (outcome: string): void => options.metrics?.jobFinished(definition.name, outcome, (Date.now() - started) / 1000);
  const claim = await claimName(job, token, definition, data, aborter, options);
  if ('superseded' in claim) {
    finish('superseded');
    return claim.superseded;
  }
  const { held } = claim;
  // What the handler leaves as last-known states, written once it has ended.
  const lastKnown = new Map<string, LastKnownWrite>();
  const settle = settlement(options.registry, held, lastKnown);
  let cluster: string | undefined;
  const ctx = jobContext(job, () => jobLogger(options.deps.logger, job, held?.name, cluster), aborter, held?.lock, lastKnown);
  try {
    // Read under the name's lock, after any wait for it; a failed read fails the attempt, and the lock goes with the settle.
    cluster = await jobCluster(data, options.recordedCluster);
    if (cluster !== undefined) ctx.cluster = cluster;
    const awayMs = held === undefined ? undefined : await options.awayWaitMs?.(cluster);
    if (awayMs !== undefined) {
      await job.log(`cluster ${cluster ?? '(the first)'} was away in the last health check: waiting ${Math.round(awayMs / 1000)} s (not an attempt)`);
      await job.moveToDelayed(Date.now() + awayMs, token);
      throw new DelayedError();
    }
    const result = redactResult(await definition.handler(data, options.deps, ctx));
    await settle(); // a failed last-known write fails the attempt, as it did inside the handler
    finish('completed');
    return result;
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    const jobError = toJobError(err);
    await job.log(`attempt ${job.attemptsMade + 1} failed: ${jobError.message}`).catch(() => undefined);
    if (jobError instanceof UnrecoverableError && held) {
      if (definition.recordsPermanentFailure) await recordPermanentFailure(options.registry, held.name, job, generationOf(data), jobError);
      await afterPermanentFailure(definition, data, options.deps, ctx);
    }
    finish(failsForGood(job, jobError) ? 'failed' : 'retried');
    throw jobError;
  } finally {
    await settle().catch(() => undefined);
  }
}
