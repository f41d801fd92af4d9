// The reconcile job's work (SPEC 1, 5), built from the job layer's pieces:
// at most one sweep at a time across processes (the sweep lock), the sweep
// over the registry, the name locks and the vm queue, and its findings
// counted for metrics (SPEC 9). With several clusters (SPEC 32) one run
// under the one lock sweeps each cluster in the configured order, its
// Proxmox calls routed by the context's cluster, and skips (with a
// warning) a cluster it cannot list. The worker registers it as the
// `reconcile` handler; the CLI only enqueues the job.
import type { RedisClient } from '../redis-script.js';
import type { Config } from '../config/types.js';
import type { OperationContext } from '../provider/types.js';
import { isScheduledJobId } from '../job-table/job-ids.js';
import { limitsFromConfig } from '../job-table/schema.js';
import { jobDoor } from '../queue/enqueue.js';
import type { JobDoor } from '../queue/enqueue.js';
import type { NameLocks } from '../queue/name-lock.js';
import type { Queues } from '../queue/queues.js';
import { keyPrefixOf } from '../queue/redis-target.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import { keys } from '../redis-keys.js';
import { nameLocksAdapter } from './lock-adapter.js';
import { pendingJobLookup, queueEnqueuer } from './queue-adapter.js';
import { registryReader } from './registry-adapter.js';
import { sweepClusters } from './sweep.js';
import { sweptClusters } from './run-clusters.js';
import { withSweepLock } from './sweep-lock.js';
import type { SweepDeps, SweepProvider } from './ports.js';
import type { SweepReport, UnleasedAddressRef } from './report.js';
import { tenantHoldBook } from './hold-adapter.js';
import { TenantHoldStore } from '../tenants/hold-store.js';
import type { Logger } from '../log.js';
import type { AddressMetrics } from '../metrics.js';

export interface ReconcileRunnerOptions {
  config: Config;
  redis: RedisClient;
  /** With several clusters, one that routes each call by the context's cluster (SPEC 32). */
  provider: SweepProvider;
  /** Its deletes and creates go in through the producer's door (src/queue/enqueue.ts). */
  queues: Queues;
  registry: DesiredStateRegistry;
  locks: NameLocks;
  /** SPEC 9: reconcilerFindings{kind}. */
  metrics?: { reconcilerFindings(kind: string, count: number): void };
  /** SPEC 29: pvep_address_unleased_seen_total{pool}. */
  addressMetrics?: AddressMetrics;
  /** Where an unleased address is warned of when the sweep runs in no job (a job's own logger otherwise). */
  logger?: Logger;
  now?: () => Date;
}

/** Several clusters' SweepReport is a ClustersReport (SPEC 32): the whole run's, and each cluster's. */
export type ReconcileOutcome = SweepReport | { skipped: true; reason: string };

export function createReconcileRunner(options: ReconcileRunnerOptions): (data: { dryRun: boolean }, ctx: OperationContext) => Promise<ReconcileOutcome> {
  const { config, redis, registry, metrics } = options;
  const prefix = keyPrefixOf(config.redis.prefix, config.redis);
  const ttlMs = config.budgets.lockTtlMs;
  const jobs = jobDoor(options.queues, limitsFromConfig(config));
  const clusters = sweptClusters(config, redis, prefix);
  const tenantHolds = tenantHoldBook(new TenantHoldStore(redis, prefix));
  return async (data, ctx) => {
    const log = (line: string): void => writeLog(ctx, line);
    const logger = ctx.logger ?? options.logger;
    const shared: SweepDeps = {
      registry: registryReader(registry, redis, prefix),
      locks: nameLocksAdapter(options.locks, ttlMs),
      jobs: pendingJobLookup({ vmQueue: options.queues.vm, leaseQueue: options.queues.leases, registry, redis, prefix }),
      enqueuer: queueEnqueuer({ jobs, registry, redis, prefix }),
      provider: options.provider,
      clock: { now: options.now ?? (() => new Date()) },
      settings: { graceSeconds: config.reconciler.graceSeconds, recreateMissing: config.reconciler.recreateMissing },
      ...(metrics ? { onFinding: (kind) => metrics.reconcilerFindings(kind, 1) } : {}),
      log,
      tenantHolds,
    };
    const sweeps = clusters.sweeps(shared, log, (seen, cluster) => {
      warnUnleased(logger, seen, cluster);
      options.addressMetrics?.addressUnleasedSeen(seen.pool);
    });
    const startedAt = shared.clock.now();
    const outcome = await withSweepLock(redis, keys.sweepLock(prefix), ttlMs, (lost) =>
      sweepClusters(sweeps, {
        dryRun: data.dryRun,
        byHand: isAskedByHand(ctx.jobId),
        signal: AbortSignal.any([ctx.signal, lost]),
        job: { jobId: ctx.jobId, logger: ctx.logger },
        skipUnlisted: clusters.several,
        log,
        onSkipped: (cluster, reason) => logger?.warn({ cluster }, `reconcile: cluster ${cluster} skipped, nothing of its names judged (deleted, created again or freed): ${reason}`),
      }),
    );
    if (outcome === 'skipped') {
      writeLog(ctx, 'skipped: another sweep is running');
      return { skipped: true, reason: 'another sweep is running' };
    }
    return clusters.resultOf(outcome, data.dryRun, startedAt, shared.clock.now(), log);
  };
}

/** A reconcile job not added by its schedule: the CLI's (`reconcile-<uuid>`). A sweep run by no job is taken as scheduled. */
function isAskedByHand(jobId: string | undefined): boolean {
  return jobId !== undefined && !isScheduledJobId(jobId);
}

/** SPEC 29: one warning per unleased address a sweep sees, naming the VM, its node and the address. */
function warnUnleased(logger: Logger | undefined, seen: UnleasedAddressRef, cluster: string | undefined): void {
  logger?.warn(
    { vm: seen.name, uid: seen.uid, vmid: seen.vmid, node: seen.node, address: seen.address, pool: seen.pool, ...(cluster === undefined ? {} : { cluster }) },
    `address ${seen.address} of VM ${seen.vmid} (${seen.name}) on ${seen.node}${cluster === undefined ? '' : ` in cluster ${cluster}`} is in pool ${seen.pool}, but no lease holds it: the pool may hand it out to another VM`,
  );
}

/** A job log line; a failed write never fails the sweep. */
function writeLog(ctx: OperationContext, line: string): void {
  Promise.resolve(ctx.log?.(line)).catch(() => undefined);
}

/** The reconcile schedule (SPEC 5); every process may upsert it at start. */
export async function scheduleReconcile(jobs: JobDoor, everySeconds: number): Promise<void> {
  await jobs.schedule('reconcile', everySeconds * 1000, { dryRun: false });
}
