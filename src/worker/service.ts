// The worker process's job service: a worker on each queue, the health
// and reconcile schedules, heartbeats, webhook deliveries (SPEC 27), and
// graceful shutdown (SPEC 1 to 4, 19), the close itself in service-close.ts.
import { allNetworks } from '../config/clusters.js';
import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import { limitsFromConfig } from '../job-table/schema.js';
import type { AnyJobDefinition, JobDeps } from '../../jobs/types.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import type { AddressMetrics, JobMetrics, LeaseMetrics, PoolMetrics, WebhookMetrics } from '../metrics.js';
import type { Provider } from '../provider/types.js';
import { createReconcileRunner, scheduleReconcile } from '../reconciler/run.js';
import { createWorkerConnection, reportRedisError, unansweredBeatReporter } from '../queue/connection.js';
import type { RedisClient } from '../queue/connection.js';
import type { WebhookQueue } from '../queue/webhook-queue.js';
import { keyPrefixOf } from '../queue/redis-target.js';
import { jobDoor, type JobDoor } from '../queue/enqueue.js';
import { startHeartbeat } from '../queue/heartbeat.js';
import { NameLocks } from '../queue/name-lock.js';
import { producerConfigPublisher } from '../queue/producer-config-store.js';
import type { ProducerConfigPublisher } from '../queue/producer-config-store.js';
import { createHealthWatch } from './health-watch.js';
import type { HealthWatch } from './health-watch.js';
import { createProcessor } from './processor.js';
import type { JobProcessor, ProcessorOptions } from './processor.js';
import { LEASE_QUEUE, SYSTEM_QUEUE, VM_QUEUE, createQueues } from '../queue/queues.js';
import type { Queues } from '../queue/queues.js';
import { DesiredStateRegistry } from '../queue/registry.js';
import { createWebhookQueue } from '../queue/webhook-queue.js';
import { closeConnection, closeService } from './service-close.js';
import type { CloseOutcome, ServiceParts } from './service-close.js';
import { leaseDeps } from './lease-deps.js';
import { addressLeaseDeps, NO_ADDRESS_POOLS } from './address-deps.js';
import { AddressPoolStore } from '../addresses/address-pool-store.js';
import { tenantHoldDeps } from './tenant-hold-deps.js';
import { TenantHoldStore } from '../tenants/hold-store.js';
import { webhookEvents } from './webhook-events.js';
import { readOptionalWebhookSecret, readWebhookSecret, startWebhookWorker } from './webhook-worker.js';
import { NO_DELIVERIES, webhookRoutes } from './webhook-routes.js';
import { tenantWebhookUrls } from '../webhooks/tenant-urls.js';
import { jobWorkerOptions } from './worker-options.js';
import { POOL_REFILL_EVERY_MS, poolJobDeps } from './pool-deps.js';
import type { PoolWiring } from './pool-deps.js';
import { configuredPoolWiring } from './pool-wiring.js';
import type { PoolStore } from '../pools/types.js';
import { schedulerId } from '../job-table/job-ids.js';
import { clustersOf, isMultiCluster } from '../config/clusters.js';
import { readLastHealth } from '../queue/health-store.js';
import { awayWaitOf, recordedClusterOf } from './job-cluster.js';

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
  /** Leases expired and the lag to their VMs' end (SPEC 31). */
  leaseMetrics?: LeaseMetrics;
  /** Addresses the sweep saw that no lease holds (SPEC 29). */
  addressMetrics?: AddressMetrics;
  /** This process's id in heartbeats; random when absent. */
  id?: string;
  definitions?: readonly AnyJobDefinition[];
  /** Schedule health (health.everySeconds) and reconcile (reconciler.everySeconds); default true. */
  schedule?: boolean;
  /** Check the nodes' health at start and log what fails; default: as schedule. */
  healthAtStart?: boolean;
  /** The warm pools' parts (SPEC 30); absent: the configured ones (pool-wiring.ts). */
  pools?: PoolWiring;
  /** Claims and misses of the warm pools (SPEC 30). */
  poolMetrics?: PoolMetrics;
}

export type { CloseOutcome } from './service-close.js';

export interface WorkerService {
  readonly id: string;
  /** Stops taking jobs, lets running ones finish within graceMs, then closes (SPEC 1). */
  close(graceMs?: number): Promise<CloseOutcome>;
}

/**
 * What the service writes before it takes jobs: the published config,
 * one system job at a time, and the schedules. A start that failed leaves
 * no connection open: the process exits (and its supervisor starts it
 * again) instead of staying up idle.
 */
/**
 * SPEC 30: with pools configured, the refill runs every POOL_REFILL_EVERY_MS
 * as a backstop to the one each claim enqueues, and once at start: a
 * schedule already in Redis keeps its next run (up to 30 s away), and a
 * start is when a pool's shape or bounds changed, whose old members must
 * drain before a create of the new shape finds them all skipped. With
 * none, the schedule goes and one refill drains what members a pool taken
 * out of config left.
 */
async function preparePools(jobs: JobDoor, queues: Queues, pools: 'scheduled' | Pick<PoolStore, 'poolsWithMembers'>): Promise<void> {
  if (pools === 'scheduled') {
    await jobs.schedule('pool-refill', POOL_REFILL_EVERY_MS, {});
    await jobs.add('pool-refill', {}, 'own', 'background');
    return;
  }
  await queues.system.removeJobScheduler(schedulerId('pool-refill'));
  if ((await pools.poolsWithMembers()).length > 0) await jobs.add('pool-refill', {}, 'own', 'background');
}

async function prepare(config: Config, schedule: boolean, pools: 'scheduled' | Pick<PoolStore, 'poolsWithMembers'>, published: ProducerConfigPublisher, queues: Queues, redis: RedisClient, deliveries: WebhookQueue | undefined): Promise<void> {
  try {
    await published.write();
    await queues.system.setGlobalConcurrency(1);
    if (schedule) {
      const jobs = jobDoor(queues, limitsFromConfig(config));
      await jobs.schedule('health', config.health.everySeconds * 1000, {});
      await scheduleReconcile(jobs, config.reconciler.everySeconds);
      await preparePools(jobs, queues, pools);
    }
  } catch (err) {
    published.stop();
    await closeConnection(Promise.all([queues.close(), deliveries?.close()]), redis);
    throw err;
  }
}

interface Served {
  processor: JobProcessor;
  worker: Worker;
}

/**
 * A worker on each job queue, one processor each: each cancels the jobs its
 * worker runs. VM jobs' ends are webhook events; the system jobs' are not;
 * a lease's timers (SPEC 31) send theirs themselves (vm.expiring).
 */
function serveQueues(config: Config, redis: RedisClient, prefix: string, logger: Logger, processorOptions: ProcessorOptions, events: Pick<ProcessorOptions, 'events' | 'logger'> | undefined): Served[] {
  const common = jobWorkerOptions(config, redis, prefix);
  const served = [
    { queue: VM_QUEUE, concurrency: config.jobs.concurrency, ...events },
    { queue: SYSTEM_QUEUE, concurrency: 1 },
    { queue: LEASE_QUEUE, concurrency: config.jobs.concurrency },
  ].map(({ queue, concurrency, ...withEvents }) => {
    const processor = createProcessor({ ...processorOptions, ...withEvents });
    return { processor, worker: new Worker(queue, processor, { ...common, concurrency }) };
  });
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
  return served;
}

/** The nodes' health checked at start, in the background: an unreachable Proxmox must not hold the start. Aborted by the close. */
function checkHealthAtStart(health: HealthWatch, logger: Logger, enabled: boolean): { stop: AbortController; done: Promise<void> } {
  const stop = new AbortController();
  const done = enabled
    ? health.checkAtStart(stop.signal).catch((err: unknown) => {
        if (!stop.signal.aborted) logger.warn({ err }, 'the health check at start could not be made');
      })
    : Promise.resolve();
  return { stop, done };
}

export async function startWorkerService(options: WorkerServiceOptions): Promise<WorkerService> {
  const { config, logger, metrics } = options;
  const id = options.id ?? randomUUID();
  // Read first: a missing secret is a start-up error, before any connection.
  // With webhooks.url empty, tenants' webhooks (SPEC 34) still need it: read if usable.
  const secretRead = config.webhooks.url === '' ? readOptionalWebhookSecret(config) : { secret: readWebhookSecret(config) };
  const webhookSecret = 'secret' in secretRead ? secretRead.secret : undefined;
  const prefix = keyPrefixOf(config.redis.prefix, config.redis);
  const definitions = buildJobRegistry(options.definitions ?? jobDefinitions);
  const redis: RedisClient = createWorkerConnection(config.redis);
  const provider = typeof options.provider === 'function' ? options.provider(redis, prefix) : options.provider;
  const registry = new DesiredStateRegistry(redis, prefix, config.registry.tombstoneSeconds);
  const locks = new NameLocks(redis, prefix);
  const queues = createQueues(redis, prefix, config.jobs);
  const health = createHealthWatch(redis, prefix, provider, logger);
  const reconcile = createReconcileRunner({ config, redis, provider, queues, registry, locks, logger, ...(metrics ? { metrics } : {}), ...(options.addressMetrics ? { addressMetrics: options.addressMetrics } : {}) });
  const deliveries = webhookSecret === undefined ? undefined : createWebhookQueue(redis, prefix, config);
  const events = webhookEvents(deliveries ?? NO_DELIVERIES, undefined, webhookRoutes(config, secretRead, tenantWebhookUrls(redis, prefix), logger));
  const leases = leaseDeps({ door: jobDoor(queues, limitsFromConfig(config)), registry, events, ...(options.leaseMetrics ? { metrics: options.leaseMetrics } : {}) });
  const pools = allNetworks(config);
  const addresses = pools.length === 0 ? NO_ADDRESS_POOLS : addressLeaseDeps(new AddressPoolStore(redis, prefix, pools), registry);
  // Always: the door takes holds whatever tokens the web process has (SPEC 34); the worker cannot tell.
  const tenantHolds = tenantHoldDeps(new TenantHoldStore(redis, prefix), registry);
  const limits = limitsFromConfig(config);
  const poolWiring = options.pools ?? configuredPoolWiring(config, provider, options.poolMetrics);
  const poolDeps = poolJobDeps(poolWiring, { config, redis, prefix, queues, registry, door: jobDoor(queues, limits), limits, logger });
  const deps: JobDeps = { provider, registry, isNameLocked: (name) => locks.isHeld(name), saveHealth: (nodes) => health.save(nodes), reconcile, leases, addresses, tenantHolds, pools: poolDeps, logger };
  const { leaseMetrics } = options;
  // SPEC 32: a job's cluster from its name's record is read only with several clusters.
  const processorOptions = { definitions, deps, limits, registry, locks, lockTtlMs: config.budgets.lockTtlMs, ...(isMultiCluster(config) ? { recordedCluster: recordedClusterOf(registry), awayWaitMs: awayWaitOf(() => readLastHealth(redis, prefix), clustersOf(config), config.health.everySeconds * 1000) } : {}), ...(metrics ? { metrics } : {}), ...(leaseMetrics ? { leaseMetrics } : {}) };
  // What a producer given no config goes by (SPEC 6, 27); rewritten on each reconnect.
  const published = producerConfigPublisher(redis, prefix, config);
  await prepare(config, options.schedule ?? true, poolWiring.configs.length > 0 ? 'scheduled' : poolDeps.store, published, queues, redis, deliveries);

  const served = serveQueues(config, redis, prefix, logger, processorOptions, { events, logger });
  const webhooks =
    webhookSecret === undefined
      ? undefined
      : startWebhookWorker({ config, connection: redis, secret: webhookSecret, logger, ...(options.webhookMetrics ? { metrics: options.webhookMetrics } : {}) });
  const heartbeat = startHeartbeat(redis, prefix, id, config.jobs.concurrency, undefined, unansweredBeatReporter(redis));
  // Listed in /readyz from the moment the service is up.
  await heartbeat.first;
  logger.info({ id, prefix, concurrency: config.jobs.concurrency }, 'workers started');
  const startCheck = checkHealthAtStart(health, logger, options.healthAtStart ?? options.schedule ?? true);

  const parts: ServiceParts = {
    stopBackground() {
      published.stop();
      startCheck.stop.abort(new Error('worker shutting down'));
    },
    processors: served.map((s) => s.processor),
    workers: [...served.map((s) => s.worker), ...(webhooks ? [webhooks.worker] : [])],
    webhooks,
    heartbeat,
    closeRest: () => Promise.all([queues.close(), deliveries?.close(), startCheck.done]),
    redis,
    logger,
  };
  return { id, close: (graceMs = config.jobs.shutdownGraceSeconds * 1000) => closeService(parts, graceMs) };
}
