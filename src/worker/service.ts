// The worker process's job service: a worker on each queue, the health
// and reconcile schedules, heartbeats, webhook deliveries (SPEC 27), and
// graceful shutdown (SPEC 1 to 4, 19).
import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import type { BackoffStrategy } from 'bullmq';
import { buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import { limitsFromConfig } from '../job-table/schema.js';
import type { AnyJobDefinition, JobDeps } from '../../jobs/types.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import type { JobMetrics, WebhookMetrics } from '../metrics.js';
import type { Provider } from '../provider/types.js';
import { createReconcileRunner, scheduleReconcile } from '../reconciler/run.js';
import { createWorkerConnection, reportRedisError, unansweredBeatReporter } from '../queue/connection.js';
import type { RedisClient } from '../queue/connection.js';
import { keyPrefixOf } from '../queue/redis-target.js';
import { jobDoor } from '../queue/enqueue.js';
import { startHeartbeat } from '../queue/heartbeat.js';
import { NameLocks } from '../queue/name-lock.js';
import { producerConfigPublisher } from '../queue/producer-config-store.js';
import { createHealthWatch } from './health-watch.js';
import { createProcessor } from './processor.js';
import { BACKOFF_TYPE, SYSTEM_QUEUE, VM_QUEUE, WORKER_METRICS, createQueues, keepJobs } from '../queue/queues.js';
import { DesiredStateRegistry } from '../queue/registry.js';
import { createWebhookQueue } from '../queue/webhook-queue.js';
import { retryDelayMs } from './retry.js';
import { webhookEvents } from './webhook-events.js';
import { readWebhookSecret, startWebhookWorker } from './webhook-worker.js';

export interface WorkerServiceOptions {
  config: Config;
  /**
   * The provider, or how to build it on this service's Redis connection
   * (the worker's own provider keeps its seed records there, SPEC 5, 26).
   */
  provider: Provider | ((redis: RedisClient, prefix: string) => Provider);
  logger: Logger;
  metrics?: JobMetrics;
  /** The webhook deliveries' counts (SPEC 27). */
  webhookMetrics?: WebhookMetrics;
  /** This process's id in heartbeats; random when absent. */
  id?: string;
  definitions?: readonly AnyJobDefinition[];
  /** Schedule health (health.everySeconds) and reconcile (reconciler.everySeconds); default true. */
  schedule?: boolean;
  /** Check the nodes' health at start and log what fails; default: as schedule. */
  healthAtStart?: boolean;
}

export interface CloseOutcome {
  /** Running jobs did not finish within the grace period and were cancelled. */
  forced: boolean;
}

export interface WorkerService {
  readonly id: string;
  /** Stops taking jobs, lets running ones finish within graceMs, then closes (SPEC 1). */
  close(graceMs?: number): Promise<CloseOutcome>;
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

export async function startWorkerService(options: WorkerServiceOptions): Promise<WorkerService> {
  const { config, logger, metrics } = options;
  const id = options.id ?? randomUUID();
  // Read first: a missing secret is a start-up error, before any connection.
  const webhookSecret = config.webhooks.url === '' ? undefined : readWebhookSecret(config);
  const prefix = keyPrefixOf(config.redis.prefix, config.redis);
  const definitions = buildJobRegistry(options.definitions ?? jobDefinitions);
  const redis: RedisClient = createWorkerConnection(config.redis);
  const provider = typeof options.provider === 'function' ? options.provider(redis, prefix) : options.provider;
  const registry = new DesiredStateRegistry(redis, prefix, config.registry.tombstoneSeconds);
  const locks = new NameLocks(redis, prefix);
  const queues = createQueues(redis, prefix, config.jobs);
  const health = createHealthWatch(redis, prefix, provider, logger);
  const reconcile = createReconcileRunner({ config, redis, provider, queues, registry, locks, ...(metrics ? { metrics } : {}) });
  const deps: JobDeps = {
    provider,
    registry,
    isNameLocked: (name) => locks.isHeld(name),
    saveHealth: (nodes) => health.save(nodes),
    reconcile,
    logger,
  };
  const processorOptions = { definitions, deps, limits: limitsFromConfig(config), registry, locks, lockTtlMs: config.budgets.lockTtlMs, ...(metrics ? { metrics } : {}) };
  const deliveries = webhookSecret === undefined ? undefined : createWebhookQueue(redis, prefix, config);
  const events = deliveries && { events: webhookEvents(deliveries), logger };
  const backoffStrategy: BackoffStrategy = (attemptsMade, type, _err, job) => {
    const base = type === BACKOFF_TYPE ? (job?.opts.backoff as { delay?: number } | undefined)?.delay : undefined;
    return retryDelayMs(attemptsMade, base ?? config.jobs.backoffMs);
  };
  // A crashed worker's job is taken over after about one lock TTL: the
  // BullMQ job lock and the stalled check follow the name lock's TTL.
  const common = {
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

  // What a producer given no config goes by (SPEC 6, 27); rewritten on each reconnect.
  const published = producerConfigPublisher(redis, prefix, config);
  try {
    await published.write();
    await queues.system.setGlobalConcurrency(1);
    if (options.schedule ?? true) {
      const jobs = jobDoor(queues, limitsFromConfig(config));
      await jobs.schedule('health', config.health.everySeconds * 1000, {});
      await scheduleReconcile(jobs, config.reconciler.everySeconds);
    }
  } catch (err) {
    // A start that failed leaves no connection open: the process exits
    // (and its supervisor starts it again) instead of staying up idle.
    published.stop();
    await Promise.race([Promise.all([queues.close(), deliveries?.close()]).catch(() => undefined), sleep(REDIS_GONE_MS)]);
    redis.disconnect();
    throw err;
  }

  // One processor per worker: each cancels the jobs its worker runs.
  // VM jobs' ends are webhook events; the system jobs' are not.
  const served = [
    { queue: VM_QUEUE, concurrency: config.jobs.concurrency, ...events },
    { queue: SYSTEM_QUEUE, concurrency: 1 },
  ].map(({ queue, concurrency, ...withEvents }) => {
    const processor = createProcessor({ ...processorOptions, ...withEvents });
    return { processor, worker: new Worker(queue, processor, { ...common, concurrency }) };
  });
  const webhooks =
    webhookSecret === undefined
      ? undefined
      : startWebhookWorker({ config, connection: redis, secret: webhookSecret, logger, ...(options.webhookMetrics ? { metrics: options.webhookMetrics } : {}) });
  const workers = [...served.map((s) => s.worker), ...(webhooks ? [webhooks.worker] : [])];
  for (const { worker, processor } of served) {
    // A job whose BullMQ lock could not be renewed may already run
    // elsewhere: abort its Proxmox calls before the next write (SPEC 3).
    worker.on('lockRenewalFailed', (jobIds) => {
      for (const jobId of jobIds) processor.cancel(jobId, 'lost the job lock');
    });
    // A Redis outage is reported once per retry interval, not once per failed call (SPEC 24).
    worker.on('error', (err) => reportRedisError(redis, err, `worker ${worker.name}`, logger));
    worker.on('stalled', (jobId) => logger.warn({ jobId, queue: worker.name }, 'stalled job recovered'));
  }
  const heartbeat = startHeartbeat(redis, prefix, id, config.jobs.concurrency, undefined, unansweredBeatReporter(redis));
  // Listed in /readyz from the moment the service is up.
  await heartbeat.first;
  logger.info({ id, prefix, concurrency: config.jobs.concurrency }, 'workers started');
  // In the background: an unreachable Proxmox must not hold the start.
  const startCheck = new AbortController();
  const checkedAtStart =
    (options.healthAtStart ?? options.schedule ?? true)
      ? health.checkAtStart(startCheck.signal).catch((err: unknown) => {
          if (!startCheck.signal.aborted) logger.warn({ err }, 'the health check at start could not be made');
        })
      : Promise.resolve();

  return {
    id,
    async close(graceMs = config.jobs.shutdownGraceSeconds * 1000) {
      published.stop();
      startCheck.abort(new Error('worker shutting down'));
      // BullMQ may still hand over a job it fetched as the close began.
      for (const { processor } of served) processor.stopTaking();
      const closing = Promise.all(workers.map((w) => w.close()));
      // With Redis down the heartbeat's DEL and the queues' close would wait
      // for it for ever (SPEC 24): bounded, so a stop signal still stops.
      await Promise.race([heartbeat.stop(), sleep(REDIS_GONE_MS)]);
      // Once no job runs here the close waits only for Redis: while it is
      // down that never comes, and the grace is for running jobs (SPEC 1).
      let closed = false;
      const running = (): boolean => served.some(({ processor }) => processor.runningCount() > 0);
      const idle = async (): Promise<'idle'> => {
        for (;;) {
          while (!closed && running()) await sleep(IDLE_POLL_MS);
          // A job BullMQ had fetched as the close began may start meanwhile.
          await sleep(REDIS_GONE_MS);
          if (closed || !running()) return 'idle';
        }
      };
      let forced = false;
      const outcome = await Promise.race([closing, sleep(graceMs), idle()]);
      closed = true;
      if (outcome === 'timeout') {
        forced = true;
        logger.warn({ graceMs }, 'running jobs did not finish within the grace period; cancelling them');
        for (const { processor } of served) processor.cancelAll('worker shutting down');
        webhooks?.cancelAll('worker shutting down');
        await Promise.race([closing, sleep(CANCEL_SETTLE_MS)]);
      }
      await Promise.race([Promise.all([queues.close(), deliveries?.close(), checkedAtStart]).catch(() => undefined), sleep(REDIS_GONE_MS)]);
      redis.disconnect();
      return { forced };
    },
  };
}
