// What every job worker of the service is made with besides its queue and
// concurrency (SPEC 1, 3, 4): the retry delays, how soon a crashed
// worker's job is taken over, what BullMQ keeps of ended jobs, and the
// totals /metrics exports.
import type { BackoffStrategy, WorkerOptions } from 'bullmq';
import type { Config } from '../config/types.js';
import type { RedisClient } from '../queue/connection.js';
import { BACKOFF_TYPE, WORKER_METRICS, keepJobs } from '../queue/queues.js';
import { retryDelayMs } from './retry.js';

export function jobWorkerOptions(config: Config, redis: RedisClient, prefix: string): WorkerOptions {
  const backoffStrategy: BackoffStrategy = (attemptsMade, type, _err, job) => {
    const base = type === BACKOFF_TYPE ? (job?.opts.backoff as { delay?: number } | undefined)?.delay : undefined;
    return retryDelayMs(attemptsMade, base ?? config.jobs.backoffMs);
  };
  // A crashed worker's job is taken over after about one lock TTL: the
  // BullMQ job lock and the stalled check follow the name lock's TTL.
  return {
    connection: redis,
    prefix,
    lockDuration: config.budgets.lockTtlMs,
    stalledInterval: config.budgets.lockTtlMs,
    // A stall (its worker died) costs the job like a failed attempt would.
    maxStalledCount: config.jobs.attempts,
    settings: { backoffStrategy },
    removeOnComplete: keepJobs(config.jobs.keepCompletedCount, config.jobs.keepCompletedSeconds),
    removeOnFail: keepJobs(config.jobs.keepFailedCount, config.jobs.keepFailedSeconds),
    // BullMQ's completed/failed totals that /metrics exports count only with this.
    metrics: WORKER_METRICS,
  };
}
