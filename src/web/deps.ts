// What the web process is built from. Each part is passed in, so tests
// build the app on a real Redis with their own prefix, and `all` shares
// one set of connections between web and worker.
import type { Queue } from 'bullmq';
import type { UncheckedProvisionerClient } from '../client.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { PoolCounts } from '../addresses/address-pool-store.js';
import type { TenantUsage } from '../tenants/types.js';
import type { Metrics } from '../metrics.js';
import type { ReadyTokens } from '../queue/ready-signals.js';
import type { Credentials } from './auth/credentials.js';
import type { FailedAuthOptions } from './auth/failed-auth.js';
import type { ReadinessSources } from './readiness.js';
import type { JobEventOptions } from './job-event-options.js';
import type { RedisDownProbe } from './redis-down.js';

/**
 * The producer-side operations the /v1 routes forward to. A route calls
 * them as its request's tenant (asTenant, SPEC 34); the others are there
 * for a test's wrapper to delegate to.
 */
export type VmService = Pick<UncheckedProvisionerClient, 'createVm' | 'deleteVm' | 'enqueueJob' | 'getJob' | 'waitForJob' | 'getVm' | 'listVms' | 'renewLease' | 'asTenant'>;

/** One tenant's calls (SPEC 34): its names alone seen and acted on (admin: all). */
export type TenantCalls = ReturnType<VmService['asTenant']>;

/** The warm pools' listing (SPEC 30) GET /v1/pools forwards to. */
export type PoolService = Pick<UncheckedProvisionerClient, 'listPools'>;

export interface WebDeps {
  config: Config;
  logger: Logger;
  service: VmService;
  /** GET /v1/pools; absent: no pools listed. */
  pools?: PoolService;
  /** Every queue, for Bull Board and the BullMQ queue metrics. */
  queues: Queue[];
  readiness: ReadinessSources;
  /** Phone-home tokens (SPEC 29), taken by POST /v1/ready/:token. */
  readyTokens: ReadyTokens;
  metrics: Metrics;
  /** undefined when http.authDisabled. */
  credentials: Credentials | undefined;
  /** Says when the web process's Redis connection is down (SPEC 24); never, when absent. */
  redisDown?: RedisDownProbe;
  /** GET /v1/jobs/:id/events's limits and intervals; JOB_EVENT_DEFAULTS for what is not given. */
  jobEvents?: Partial<JobEventOptions>;
  /** How wrong credentials are slowed; FAILED_AUTH_DEFAULTS for what is not given. */
  failedAuth?: Partial<FailedAuthOptions>;
  /** The address pools' figures read from Redis (SPEC 29); no pool series when absent. */
  addressPools?: () => Promise<PoolCounts[]>;
  /** Every tenant's usage read from Redis (SPEC 34); no usage series when absent. */
  tenantUsage?: () => Promise<Map<string, TenantUsage>>;
}
