// The two queues (SPEC 1, 5): VM jobs on one, the system jobs (reconcile,
// health) on another that runs one job at a time across all workers. Which
// job goes on which is the job table's (jobs/schema.ts JOB_TABLE).
import { Queue } from 'bullmq';
import type { ConnectionOptions, JobsOptions, KeepJobs } from 'bullmq';
import type { Config } from '../config/types.js';
import type { QueueName } from '../../jobs/schema.js';
import { reportRedisError } from './connection.js';

export const VM_QUEUE = 'vm' satisfies QueueName;
export const SYSTEM_QUEUE = 'system' satisfies QueueName;

/** The name of this service's custom backoff (src/worker/retry.ts). */
export const BACKOFF_TYPE = 'jittered-exponential';

/** Retention of finished jobs (SPEC 1): a count of 0 keeps none, 0 seconds sets no age bound. */
export function keepJobs(count: number, seconds: number): KeepJobs {
  return seconds === 0 ? { count } : { count, age: seconds };
}

export function defaultJobOptions(jobs: Config['jobs']): JobsOptions {
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

export function createQueues(connection: ConnectionOptions, prefix: string, jobs?: Config['jobs']): Queues {
  const options = { connection, prefix, ...(jobs ? { defaultJobOptions: defaultJobOptions(jobs) } : {}) };
  const vm = new Queue(VM_QUEUE, options);
  const system = new Queue(SYSTEM_QUEUE, options);
  // Without a listener BullMQ prints every connection error with its stack (SPEC 24).
  for (const queue of [vm, system]) queue.on('error', (err) => reportRedisError(connection, err, `queue ${queue.name}`));
  return {
    vm,
    system,
    close: async () => {
      await Promise.all([vm.close(), system.close()]);
    },
  };
}
