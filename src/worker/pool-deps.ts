// The warm pools' job dependencies (SPEC 30), built by the worker service
// from its registry, door and queues and from what the pools' other parts
// give (PoolWiring): the config's pools, the Redis store, the shape's
// fingerprint and the provider's claim.
import type { Config } from '../config/types.js';
import { clusterNamed } from '../config/clusters.js';
import type { JobLimits } from '../job-table/schema.js';
import type { ClaimVm, PoolJobDeps } from '../pools/job-deps.js';
import type { PoolMetrics } from '../metrics.js';
import { drainMember, refillPools } from '../pools/refill.js';
import type { PoolConfig, PoolShape, PoolStore } from '../pools/types.js';
import type { Logger } from '../log.js';
import type { JobDoor } from '../queue/enqueue.js';
import { createLeaseTimer } from '../queue/lease-timer.js';
import type { Queues } from '../queue/queues.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import type { RedisClient } from '../redis-script.js';

/** How often the refill runs as a backstop to the one each claim enqueues. */
export const POOL_REFILL_EVERY_MS = 30_000;

/** What the pools' other parts give the worker (wired where the worker starts). */
export interface PoolWiring {
  /** config.pools: the configured pools, defaults filled. */
  configs: readonly PoolConfig[];
  /** The Redis store (src/pools/pool-store.ts) on the worker's connection and key prefix. */
  store(redis: RedisClient, prefix: string): PoolStore;
  /** src/pools/fingerprint.ts poolFingerprint. */
  fingerprint: (shape: PoolShape) => string;
  /** src/provider/claim.ts claimVm, on the worker's provider. */
  claimVm: ClaimVm;
  /** `err instanceof ClaimLostError` (src/provider/claim.ts). */
  isClaimLost: (err: unknown) => boolean;
  /** The process's metrics (src/metrics.ts). */
  metrics?: PoolMetrics;
}

export interface PoolDepsParts {
  config: Pick<Config, 'proxmox' | 'leases'>;
  redis: RedisClient;
  prefix: string;
  queues: Queues;
  registry: DesiredStateRegistry;
  door: JobDoor;
  limits: JobLimits;
  logger: Logger;
}

/** The image's default cloud-init user (proxmox.images[].user), whose authorized_keys a claim writes. */
function userOf(config: PoolDepsParts['config'], image: string, cluster: string | undefined): string {
  // The claimer's cluster's image (SPEC 32): the one-cluster form's is proxmox.images.
  const images: readonly { name: string; user?: string }[] = clusterNamed(config, cluster)?.images ?? config.proxmox.images;
  const found = images.find((entry) => entry.name === image);
  if (found?.user === undefined) throw new Error(`image ${image} has no user (proxmox.images[].user): a pool VM of it cannot be claimed`);
  return found.user;
}

export function poolJobDeps(wiring: PoolWiring, parts: PoolDepsParts): PoolJobDeps {
  const { config, redis, prefix, queues, registry, door, limits, logger } = parts;
  const store = wiring.store(redis, prefix);
  const leaseTimer = createLeaseTimer({ door, queue: queues.leases, redis, prefix, warnSeconds: config.leases.warnSeconds });
  const writers = { door, registry, limits, leaseTimer };
  const configOf = (pool: string) => wiring.configs.find((entry) => entry.name === pool);
  const refillDeps = { store, writers, fingerprint: wiring.fingerprint, log: (line: string) => logger.info(line) };
  return {
    configured: wiring.configs.length > 0,
    store,
    claim: (spec, claim, ctx, hooks) => wiring.claimVm(spec, claim, userOf(config, spec.image ?? limits.defaultImage, spec.cluster), ctx, hooks),
    isClaimLost: wiring.isClaimLost,
    fingerprintOf(pool) {
      const found = configOf(pool);
      return found && wiring.fingerprint(found);
    },
    async enqueueRefill(pool) {
      // One waits per pool: a burst of claims adds one, and a claim during a refill one more behind it.
      await door.add('pool-refill', { pool }, { oneWaiting: pool }, 'background');
    },
    drain: (member) => drainMember(refillDeps, member),
    refill: (pool) => refillPools(refillDeps, wiring.configs, pool),
    ...(wiring.metrics ? { metrics: wiring.metrics } : {}),
  };
}
