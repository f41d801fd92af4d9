// The queues (SPEC 1, 5, 31): VM jobs on one, the system jobs (reconcile,
// health) on another that runs one job at a time across all workers, and
// a lease's delayed timers on a third. Which
// job goes on which is the job table's (src/job-table/schema.ts JOB_TABLE).
import { Queue } from 'bullmq';
import type { ConnectionOptions, JobsOptions, KeepJobs } from 'bullmq';
import type { ProducerJobOptions } from '../config/producer.js';
import type { QueueName } from '../job-table/schema.js';
import { reportRedisError } from './connection.js';

export const VM_QUEUE = 'vm' satisfies QueueName;
export const SYSTEM_QUEUE = 'system' satisfies QueueName;
/** A lease's timers (SPEC 31): delayed jobs, on a queue of their own so a long sweep never holds an expiry back. */
export const LEASE_QUEUE = 'leases' satisfies QueueName;

/** The name of this service's custom backoff (src/worker/retry.ts). */
export const BACKOFF_TYPE = 'jittered-exponential';

/**
 * The workers' BullMQ `metrics` option. Without it BullMQ counts nothing
 * and /metrics' bullmq_job_completed_total and bullmq_job_failed_total
 * read 0 for ever; with it each finished job adds one to a counter in
 * Redis (one per queue, shared by every worker), plus one data point a
 * minute of which this many are kept: an hour, since we export only the
 * totals (SPEC 9, 27).
 */
export const WORKER_METRICS = { maxDataPoints: 60 } as const;

/** Retention of finished jobs (SPEC 1): a count of 0 keeps none, 0 seconds sets no age bound. */
export function keepJobs(count: number, seconds: number): KeepJobs {
  return seconds === 0 ? { count } : { count, age: seconds };
}

function defaultJobOptions(jobs: ProducerJobOptions): JobsOptions {
  return {
    attempts: jobs.attempts,
    backoff: { type: BACKOFF_TYPE, delay: jobs.backoffMs },
    removeOnComplete: keepJobs(jobs.keepCompletedCount, jobs.keepCompletedSeconds),
    removeOnFail: keepJobs(jobs.keepFailedCount, jobs.keepFailedSeconds),
  };
}

export interface Queues extends Record<QueueName, Queue> {
  close(): Promise<void>;
}

export function createQueues(connection: ConnectionOptions, prefix: string, jobs?: ProducerJobOptions): Queues {
  const options = { connection, prefix, ...(jobs ? { defaultJobOptions: defaultJobOptions(jobs) } : {}) };
  const vm = new Queue(VM_QUEUE, options);
  const system = new Queue(SYSTEM_QUEUE, options);
  const leases = new Queue(LEASE_QUEUE, options);
  // Without a listener BullMQ prints every connection error with its stack (SPEC 24).
  for (const queue of [vm, system, leases]) queue.on('error', (err) => reportRedisError(connection, err, `queue ${queue.name}`));
  return {
    vm,
    system,
    leases,
    close: async () => {
      await Promise.all([vm.close(), system.close(), leases.close()]);
    },
  };
}
