// The one door through which jobs enter the queues (SPEC 1, 2, 6): it
// checks a job's stored data against the job table's schema, puts the job
// on the table's queue and gives it an id of the table's shape
// (src/job-table/job-ids.ts). The producer library, the reconciler, the CLI and the
// schedules all enqueue here. Producer-safe: no worker code.
import type { Job, JobsOptions, Queue } from 'bullmq';
import { intentJobId, leaseJobId, nameJobId, oneWaitingKey, ownJobId, repeatedIntentJobId, schedulerId } from '../job-table/job-ids.js';
import { JOB_TABLE, validateEnqueuedJobData } from '../job-table/schema.js';
import type { JobLimits, JobName, LeaseJob, RecordedJob } from '../job-table/schema.js';
import { ValidationError } from './producer-errors.js';
import type { Queues } from './queues.js';
import { NO_REPLICA_ACKS, type ReplicaAcks } from './replica-acks.js';

/** Which id a job gets. */
type JobIdChoice =
  /** A recorded intent's job (SPEC 2), under the id the registry recorded for it. */
  | { recorded: string }
  /** A recorded intent's job once more, under a new id (the reconciler's re-create: the first may be kept as completed). */
  | 'again'
  /** A job of its own: `<job>-<name>-<uuid>`, or `<job>-<uuid>` for a job of no name. */
  | 'own'
  /**
   * A job of its own id of which one waits per key (a pool's refill, SPEC
   * 30): added while one of the key waits, it adds nothing; while one runs,
   * it waits behind it (one at most), so what changed during that run is
   * still seen. BullMQ's deduplication with keepLastIfActive, whose key
   * goes when the job ends.
   */
  | { oneWaiting: string };

/**
 * Where a job goes in its queue: `next`, at the head (BullMQ's lifo), for a
 * job that must not wait behind the queue's backlog: a lease's end (SPEC
 * 31), whose VM must go within its bound however many creates wait.
 * `background`, behind every job of no priority: a warm pool's member
 * creates and drains (SPEC 30), so a burst of refills never starves
 * callers' jobs. BullMQ serves its wait list (jobs of priority 0, the
 * callers') before its prioritized set (bullmq 6.7 moveToActive-11.lua).
 */
export type JobOrder = 'fifo' | 'next' | 'background';

/** The BullMQ priority of a `background` job: any value above 0 is served after every job of none. */
export const BACKGROUND_PRIORITY = 100;

export interface JobDoor {
  /**
   * A caller's accept: its writes (desired-state record, job), answered only
   * once redis.replicaAcks replicas have them (SPEC 1, 22, 25); else a
   * ReplicaAcksError, and repeating the same accept is safe.
   */
  accept<T>(writes: () => Promise<T>): Promise<T>;
  /** Checks `data` as the worker will (less the fields only the worker writes), then adds the job; throws ValidationError, adding nothing, when it is refused. */
  add(job: JobName, data: unknown, id?: JobIdChoice, order?: JobOrder): Promise<Job>;
  /**
   * The job of an intent already recorded: kept when it is there, added
   * again when it is gone (retention, or a crash between record and add),
   * retried when it failed, since the caller asks again for the same thing.
   */
  ensure(job: RecordedJob, data: unknown, recordedId: string, order?: JobOrder): Promise<void>;
  /**
   * A lease's timer (SPEC 31), run `delayMs` from now under the id of its
   * name, generation and lease version: adding one already kept adds
   * nothing, so setting the same lease twice sets one timer.
   */
  later(job: LeaseJob, data: unknown, delayMs: number): Promise<Job>;
  /** The job's schedule (SPEC 5, 19), named after the job; idempotent, so every worker upserts it at start. */
  schedule(job: JobName, everyMs: number, data: unknown): Promise<void>;
}

interface Identified {
  name?: unknown;
  generation?: unknown;
  leaseVersion?: unknown;
}

function checked(job: JobName, data: unknown, limits: JobLimits): Identified {
  const result = validateEnqueuedJobData(job, data, limits);
  if (!result.ok) throw new ValidationError(result.errors);
  return result.value as Identified;
}

function nameOf(job: JobName, data: Identified): string {
  if (typeof data.name !== 'string') throw new Error(`a ${job} job needs a name for its id`);
  return data.name;
}

function generationOf(job: JobName, data: Identified): number {
  if (typeof data.generation !== 'number') throw new Error(`a ${job} job needs a generation for its id`);
  return data.generation;
}

function isIntent(job: JobName): job is RecordedJob {
  const ids: string = JOB_TABLE[job].ids;
  return ids === 'intent' || ids === 'internal';
}

/** The id of a job of the table's shape; a recorded id must be the one src/job-table/job-ids.ts gives the intent. */
function jobIdFor(job: JobName, data: Identified, choice: JobIdChoice): string {
  if (choice === 'own' || (typeof choice === 'object' && 'oneWaiting' in choice)) return JOB_TABLE[job].ids === 'system' ? ownJobId(job) : nameJobId(job, nameOf(job, data));
  if (!isIntent(job)) throw new Error(`a ${job} job records no intent, so it has no intent id`);
  const expected = intentJobId(job, nameOf(job, data), generationOf(job, data));
  if (choice === 'again') return repeatedIntentJobId(job, nameOf(job, data), generationOf(job, data));
  if (choice.recorded !== expected) throw new Error(`job id ${choice.recorded} is not the id of ${job} ${nameOf(job, data)} at its generation (${expected})`);
  return choice.recorded;
}

/**
 * A `next` job's options: at the head of its queue, and retried at the
 * queue's base delay each time instead of doubling it: seven failed
 * attempts of a lease's delete under faults and Redis restarts took 23 s
 * at a 200 ms base, past the lease's bound (SPEC 31).
 */
function orderOptions(queue: Queue, order: JobOrder): JobsOptions {
  if (order === 'fifo') return {};
  if (order === 'background') return { priority: BACKGROUND_PRIORITY };
  const delay = (queue.defaultJobOptions.backoff as { delay?: number } | undefined)?.delay;
  return { lifo: true, ...(delay === undefined ? {} : { backoff: { type: 'fixed', delay } }) };
}

/** `acks` for the door of callers' requests (the producer library, so the HTTP API); the service's own jobs need none. */
export function jobDoor(queues: Queues, limits: JobLimits, acks: ReplicaAcks = NO_REPLICA_ACKS): JobDoor {
  const queueOf = (job: JobName) => queues[JOB_TABLE[job].queue];
  return {
    accept: (writes) => acks.confirmed(writes),

    async add(job, data, id = 'own', order = 'fifo') {
      const value = checked(job, data, limits);
      const once = typeof id === 'object' && 'oneWaiting' in id ? { deduplication: { id: oneWaitingKey(job, id.oneWaiting), keepLastIfActive: true } } : {};
      return queueOf(job).add(job, value, { jobId: jobIdFor(job, value, id), ...orderOptions(queueOf(job), order), ...once });
    },

    async ensure(job, data, recordedId, order = 'fifo') {
      const value = checked(job, data, limits);
      const jobId = jobIdFor(job, value, { recorded: recordedId });
      const queue = queueOf(job);
      const existing = (await queue.getJob(jobId)) as Job | undefined;
      if (existing === undefined) {
        await queue.add(job, value, { jobId, ...orderOptions(queue, order) });
        return;
      }
      if (!(await existing.isFailed())) return;
      // A failed create asked again may carry another address (SPEC 29: its own went back when it failed and left nothing).
      if (JSON.stringify((existing.data as { address?: unknown }).address) !== JSON.stringify((value as { address?: unknown }).address)) await existing.updateData(value);
      await existing.retry('failed');
    },

    async later(job, data, delayMs) {
      const value = checked(job, data, limits);
      if (typeof value.leaseVersion !== 'number') throw new Error(`a ${job} job needs a leaseVersion for its id`);
      const jobId = leaseJobId(job, nameOf(job, value), generationOf(job, value), value.leaseVersion);
      return queueOf(job).add(job, value, { jobId, delay: Math.max(0, Math.round(delayMs)) });
    },

    async schedule(job, everyMs, data) {
      const value = checked(job, data, limits);
      await queueOf(job).upsertJobScheduler(schedulerId(job), { every: everyMs }, { name: job, data: value });
    },
  };
}
