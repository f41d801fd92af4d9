// The worker service's close (SPEC 1, 24): no job taken any more, the
// running ones given the grace period and cancelled past it, then the
// queues and the connection closed. Every wait on Redis is bounded: while
// Redis is down it is never answered, and a stop signal must still stop.
import type { Worker } from 'bullmq';
import type { Logger } from '../log.js';
import type { RedisClient } from '../queue/connection.js';
import type { JobProcessor } from './processor.js';

export interface CloseOutcome {
  /** Running jobs did not finish within the grace period and were cancelled. */
  forced: boolean;
}

/** What the service's close stops and closes. */
export interface ServiceParts {
  /** Stops what the service does on its own: the published config's rewrites, the health check at start. */
  stopBackground(): void;
  /** The job workers' processors, for the jobs running here. */
  processors: readonly JobProcessor[];
  /** Every BullMQ worker of the service, the webhook deliveries' included. */
  workers: readonly Worker[];
  /** The webhook deliveries' worker, its POSTs cancelled with the jobs. */
  webhooks: { cancelAll(reason: string): void } | undefined;
  heartbeat: { stop(): Promise<void> };
  /** Closes what is left once the workers are (the queues); called once, at the end. */
  closeRest(): Promise<unknown>;
  redis: RedisClient;
  logger: Logger;
}

/** How long a close waits on a Redis call that cannot be answered while Redis is down. */
const REDIS_GONE_MS = 2_000;

/** How often a close looks whether jobs still run here. */
const IDLE_POLL_MS = 200;

/** After the grace period, cancelled jobs get this long to see their signal. */
const CANCEL_SETTLE_MS = 1_000;

function sleep(ms: number): Promise<'timeout'> {
  return new Promise((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
}

/** Waits for `closing` (what the connection's users close) at most REDIS_GONE_MS, then disconnects: a failed start's end as well as a close's. */
export async function closeConnection(closing: Promise<unknown>, redis: RedisClient): Promise<void> {
  await Promise.race([closing.catch(() => undefined), sleep(REDIS_GONE_MS)]);
  redis.disconnect();
}

/**
 * Once no job runs here the close waits only for Redis: while it is down
 * that never comes, and the grace is for running jobs (SPEC 1). A job
 * BullMQ had fetched as the close began may start meanwhile.
 */
async function idle(running: () => boolean, closed: () => boolean): Promise<'idle'> {
  for (;;) {
    while (!closed() && running()) await sleep(IDLE_POLL_MS);
    await sleep(REDIS_GONE_MS);
    if (closed() || !running()) return 'idle';
  }
}

/** Stops taking jobs, lets running ones finish within graceMs, cancels them past it, then closes (SPEC 1). */
export async function closeService(parts: ServiceParts, graceMs: number): Promise<CloseOutcome> {
  const { processors, logger } = parts;
  parts.stopBackground();
  // BullMQ may still hand over a job it fetched as the close began.
  for (const processor of processors) processor.stopTaking();
  const closing = Promise.all(parts.workers.map((w) => w.close()));
  // With Redis down the heartbeat's DEL and the queues' close would wait
  // for it for ever (SPEC 24): bounded, so a stop signal still stops.
  await Promise.race([parts.heartbeat.stop(), sleep(REDIS_GONE_MS)]);
  let closed = false;
  const running = (): boolean => processors.some((processor) => processor.runningCount() > 0);
  const outcome = await Promise.race([closing, sleep(graceMs), idle(running, () => closed)]);
  closed = true;
  const forced = outcome === 'timeout';
  if (forced) {
    logger.warn({ graceMs }, 'running jobs did not finish within the grace period; cancelling them');
    for (const processor of processors) processor.cancelAll('worker shutting down');
    parts.webhooks?.cancelAll('worker shutting down');
    await Promise.race([closing, sleep(CANCEL_SETTLE_MS)]);
  }
  await closeConnection(parts.closeRest(), parts.redis);
  return { forced };
}
