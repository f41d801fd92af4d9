// The producer library of SPEC 6: an application backend enqueues VM jobs
// and reads them back. It validates with the jobs' own schemas (SPEC 1)
// and records the desired state before adding a job (SPEC 2, the intent
// protocol of queue/intent.ts). No worker code, provider or handler is
// imported from here.
import { NAME_JOBS, limitsFromConfig, validateJobData } from './job-table/schema.js';
import type { JobLimits, JobRequestOf, NameJob } from './job-table/schema.js';
import { isJobIdShape } from './job-table/job-ids.js';
import { producerConfig } from './config/producer.js';
import type { ProducerSettings } from './config/producer.js';
import type { ConfigMismatch } from './config/producer-published.js';
import type { RedisClient } from './redis-script.js';
import { asRedisUnavailable, createProducerConnection } from './queue/connection.js';
import { keyPrefixOf, type RedisConnection } from './queue/redis-target.js';
import type { CreateSpec } from './job-table/create.schema.js';
import { ValidationError } from './queue/producer-errors.js';
import { viewJob } from './queue/job-view.js';
import { JobWatch } from './queue/job-watch.js';
import { waitForJob } from './queue/wait-for-job.js';
import type { JobView } from './queue/job-view.js';
import { acceptCreate, acceptDelete } from './queue/intent.js';
import { reservedNameProblem } from './pools/reserved-name.js';
import { addressShown } from './queue/address-door.js';
import type { EnqueueResult } from './queue/intent.js';
import { lazyProducerSession } from './queue/producer-session.js';
import type { ProducerSession } from './queue/producer-session.js';
import { checkedReplicaAcks, replicaAcks } from './queue/replica-acks.js';
import type { DesiredRecord, LastKnown, RecordedFailure } from './desired-state.js';
import { withTextsSummarized } from './queue/text-summary.js';
import { redactSecrets } from './secrets/redact.js';
import { fingerprintKeySource } from './config/producer-fingerprint-key.js';
import type { FingerprintKeySource } from './config/producer-fingerprint-key.js';
import type { TextsSummarized } from './queue/text-summary.js';
import { encodeCursor, parseVmListQuery, withConfiguredCluster } from './queue/vm-listing.js';
import { clusterViewer, type ClusterViewer } from './queue/cluster-view.js';
import type { VmListQuery } from './queue/vm-listing.js';
import { acceptRenewal, checkRenewal } from './queue/lease-renewal.js';
import type { LeaseRenewal, LeaseRenewalOptions, LeaseView } from './queue/lease-renewal.js';
import type { LeaseTimerFactory } from './queue/lease-timer-source.js';
import { listPoolViews } from './pools/pool-view.js';
import type { PoolList } from './pools/pool-view.js';
import type { PoolStore } from './pools/types.js';
import { RedisPoolStore } from './pools/pool-store.js';
import { ownerField, ownerOf } from './tenants/types.js';
import type { Tenant, TenantQuotas, TenantScope, TenantUsageView } from './tenants/types.js';
import { clientTenant, listTenantUsage, ownerForJob, refuseOthersName, refuseReadScope, tenantReads, tenantUsage } from './tenants/tenant-calls.js';
import { clusterShapesOfLimits, clusterViews } from './queue/cluster-views.js';
import type { ClusterView } from './queue/cluster-views.js';
import { readLastHealth } from './queue/health-store.js';

export { ConflictError, LeaseExpiredError, LeaseShortenError, NameNotFoundError, NameTakenError, PoolExhaustedError, QuotaExceededError, RateLimitedError, ScopeError, SpecConflictError, ValidationError } from './queue/producer-errors.js';
export type { Tenant, TenantQuotas, TenantScope, TenantUsage, TenantUsageView } from './tenants/types.js';
export type { LeaseRenewal, LeaseRenewalOptions, LeaseView } from './queue/lease-renewal.js';
export type { FieldError } from './job-table/schema.js';
export type { JobDataView, JobView, JobViewOf, JobState } from './queue/job-view.js';
export type { CheckResult, CreateResult, CreateStep, DeleteResult, JobResults, SupersededResult, TemplateSource, VmState } from './job-table/result.schema.js';
export { CREATE_STEPS } from './job-table/result.schema.js';
export type { TextSummary } from './queue/text-summary.js';
export type { JobName } from './job-table/schema.js';
export type { VmListQuery } from './queue/vm-listing.js';
export type { PoolList, PoolView } from './pools/pool-view.js';
export type { ClusterNodeView, ClusterView } from './queue/cluster-views.js';
export type { ClusterState } from './queue/cluster-health.js';
export { ProducerConfigError, PRODUCER_DEFAULTS } from './config/producer.js';
export { RedisUnavailableError } from './queue/connection.js';
export { ReplicaAcksError } from './queue/replica-acks.js';
export type { ProducerConfig, ProducerJobOptions, ProducerSettings } from './config/producer.js';
export type { ConfigMismatch } from './config/producer-published.js';
export type { ConfigDifference } from './config/producer-diff.js';
export type { EnqueueResult } from './queue/intent.js';
export type { CreateSource, PoolClaim } from './pools/types.js';

export interface ProvisionerClientOptions {
  redisUrl: string;
  /**
   * A Redis Cluster or Sentinel-managed master to use instead of redisUrl
   * alone (SPEC 25), as config.redis describes it; its url wins over redisUrl.
   * `replicaAcks` (default 0) makes each accept wait for that many replicas
   * (WAIT, at most `replicaAckTimeoutMs`, default 1000); fewer is a ReplicaAcksError.
   */
  redis?: RedisConnection;
  /** The key prefix as configured (redis.prefix); on a Cluster the keys go under the hash tag {prefix}. */
  prefix: string;
  /**
   * Left out (usual): on its first call the client reads the config the
   * service's web and worker processes publish under the prefix, or, with
   * none published (a service older than this), takes the service's
   * defaults (PRODUCER_DEFAULTS). Given (a service Config will do, the
   * defaults fill any part left out): used as it is, and `onConfigMismatch`
   * hears on the first call when the published one means other jobs.
   */
  config?: ProducerSettings;
  /**
   * Told once per client, on its first call, when `config` is given and
   * differs from the published one in nodes, defaults, limits, images or
   * the default image (each key in `differences`). Default: a Node
   * process warning (process.emitWarning, code PVEP_PRODUCER_CONFIG).
   */
  onConfigMismatch?: (mismatch: ConfigMismatch) => void;
  /**
   * The file holding the deployment's fingerprint key, the service's
   * http.fingerprintKeyFile. Given: a create's userData and networkConfig
   * show in views as their size and `hmacSha256`, the same as the HTTP API
   * answers; the file is read on the first view that needs it, and a file
   * that cannot be read is a ProducerConfigError naming it. Left out: their
   * size alone (the key is a secret and is not published in Redis).
   */
  fingerprintKeyFile?: string;
  /**
   * Builds the timers that end leases at their expiry (SPEC 31). Left out
   * (usual): the service's. Tests pass their own.
   */
  leaseTimers?: LeaseTimerFactory;
  /**
   * The warm pools' store (SPEC 30, src/pools/pool-store.ts) on this
   * client's connection and key prefix, which listPools reads; the Redis
   * store (RedisPoolStore) when absent.
   */
  poolStore?: (redis: RedisClient, prefix: string) => Pick<PoolStore, 'members' | 'demand'>;
  /**
   * Whose names this client creates and sees (SPEC 34): a tenant's name,
   * its scope (default `write`: its own names only) and quotas, checked at
   * each create as the HTTP API checks a token's. Left out: the default
   * tenant with the admin scope and no quotas, as before tenants.
   */
  tenant?: { name: string; scope?: TenantScope; quotas?: TenantQuotas };
}

/** A create as a typed caller sends it: `name` required, the rest optional (the sizes default from config). */
export type CreateVmInput = JobRequestOf<'create'>;
export type DeleteVmInput = JobRequestOf<'delete'>;
export type CheckVmInput = JobRequestOf<'check'>;

/** What each call takes: unknown for a front door that passes on input nobody has checked yet. */
interface CallInputs {
  create: unknown;
  delete: unknown;
  check: unknown;
  nameJob: unknown;
  renewal: unknown;
}

/** The typed calls a TypeScript backend makes: a misspelt field or a wrong type does not compile. */
export interface TypedInputs extends CallInputs {
  create: CreateVmInput;
  delete: DeleteVmInput;
  check: CheckVmInput;
  nameJob: JobRequestOf<NameJob>;
  renewal: LeaseRenewal;
}

/**
 * A present name's spec as answers show it: the create's fields with the
 * uid settled and the sizes filled in, userData and networkConfig as their
 * size and sha256. `image` is absent in a spec recorded before images
 * (it meant the default image).
 */
export type VmSpecView = TextsSummarized<Omit<CreateSpec, 'image'> & { image?: string }>;

export interface DesiredView {
  name: string;
  state: 'present' | 'absent';
  /** The tenant that owns the name (SPEC 34): its creator's; `default` for a name recorded before tenants. */
  tenant: string;
  uid?: string;
  generation: number;
  /** The create's fields, userData and networkConfig as their size and keyed fingerprint only (SPEC 24). */
  spec?: VmSpecView;
  updatedAt: string;
  lastKnown?: LastKnown;
  jobId?: string;
  /** The present generation's create failed Permanent; a new create clears it (SPEC 2). */
  failed?: RecordedFailure;
  /** RFC 3339: when the name's lease ends its VM unless renewed (SPEC 31); absent: no lease. */
  expiresAt?: string;
  /** With a lease: what runs at expiresAt, a delete or a stop. */
  onExpiry?: 'delete' | 'stop';
  /** The VM's static IPv4 address from its network's pool (SPEC 29), leased at the accept; absent: DHCP (lastKnown.address is what the VM reported). */
  address?: string;
  /** The address pool it came from. */
  addressPool?: string;
  /** With several clusters (SPEC 32): the cluster the name lives in. */
  cluster?: string;
  /** With several clusters: the last health found the name's cluster away, so its VM is Unknown (lastKnown.state) until it answers again. */
  clusterAway?: true;
}

/** One page of names in name order (SPEC 27). */
export interface VmPage {
  vms: DesiredView[];
  /** Pass it as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** The Proxmox clusters behind the service (SPEC 32), in the configured order. */
export interface ClusterList {
  clusters: ClusterView[];
}

/** Every input is checked at run time whatever its type says: the same ValidationError either way. */
export interface ProvisionerClientOf<I extends CallInputs> {
  /**
   * Throws ValidationError (every field; on a pooled network, SPEC 29, a
   * networkConfig, or no node when the image's nodes are on different
   * networks), SpecConflictError (the name is present with another spec:
   * every differing field), ConflictError (another uid holds the name) or
   * PoolExhaustedError (its network's address pool has no free address).
   * With no uid, a present name's is taken. On a pooled network the answer
   * carries the VM's `address`.
   */
  createVm(input: I['create']): Promise<EnqueueResult>;
  deleteVm(input: I['delete']): Promise<EnqueueResult>;
  checkVm(input: I['check']): Promise<EnqueueResult>;
  /** A job for one name that records no desired state: a check, or any `per-name` job of the job table (src/job-table/schema.ts). */
  enqueueJob(job: NameJob, input: I['nameJob']): Promise<EnqueueResult>;
  getJob(id: string): Promise<JobView | undefined>;
  /**
   * Resolves when the job completed or failed, or with its current view on
   * timeout. `onView` sees each view read while waiting (about every 100
   * ms, reads the waits on one job in a process share), the last one
   * included: its state, progress and log lines so far.
   * Redis down at the call is a RedisUnavailableError at once; an outage
   * after the first read (a restart, a failover) is waited out, and is a
   * RedisUnavailableError only if it lasts until the timeout.
   */
  waitForJob(id: string, options?: { timeoutMs?: number; onView?: (view: JobView) => void }): Promise<JobView>;
  getVm(name: string): Promise<DesiredView | undefined>;
  /**
   * A page of the names, in name order: `limit` (1 to 1000, default 100),
   * `cursor` (the previous page's nextCursor), `state` and `node` (where
   * the VM was last seen), `expiringBefore` (RFC 3339: only names whose
   * lease ends before then, SPEC 31), `cluster` (a configured cluster:
   * the names that live in it, SPEC 32). Throws ValidationError naming a bad parameter.
   */
  listVms(query?: VmListQuery): Promise<VmPage>;
  /**
   * Moves the name's lease (SPEC 31) to `ttlSeconds` from now or to
   * `expiresAt` (RFC 3339), never past leases.maxSeconds from now; earlier
   * than it ends now only with `{ shorten: true }`. A name without a lease
   * gets one. Answers the new lease. Throws ValidationError (naming the
   * field), NameNotFoundError (no present name), LeaseExpiredError (its
   * expiry stopped the VM: create it again to start it) or LeaseShortenError.
   */
  renewLease(name: string, renewal: I['renewal'], options?: LeaseRenewalOptions): Promise<LeaseView>;
  /** Each configured warm pool (SPEC 30): its shape, minIdle, maxIdle, maxAgeMinutes, and its members idle, claimed and creating. */
  listPools(): Promise<PoolList>;
  /**
   * Each Proxmox cluster (SPEC 32), in the configured order: its health
   * (up, degraded, away, unknown), nodes and images from the config this
   * client checks creates against, and its nodes' health and free memory
   * from the last health check; the one-cluster form is one cluster,
   * `default`. Any tenant may read it.
   */
  listClusters(): Promise<ClusterList>;
  /** This client's tenant (SPEC 34): its quotas and what it holds now. */
  tenantUsage(): Promise<TenantUsageView>;
  /** Every tenant that holds something or is given (`known`, the configured ones): admin scope only, else a ScopeError. */
  listTenantUsage(known?: readonly Tenant[]): Promise<TenantUsageView[]>;
  /**
   * The same calls on the same connection for another tenant (SPEC 34):
   * the HTTP API's, one per request, with the token's tenant. Its names
   * alone are seen and acted on (admin: all); another's are not found.
   */
  asTenant(tenant: Tenant): TenantClientOf<I>;
  close(): Promise<void>;
}

/** One tenant's calls on a client's connection (asTenant): all but close. */
export type TenantClientOf<I extends CallInputs> = Omit<ProvisionerClientOf<I>, 'close' | 'asTenant'>;

/** The client a TypeScript backend uses (createProvisionerClient). */
export type ProvisionerClient = ProvisionerClientOf<TypedInputs>;
/** The same client taking input as it came (a request body, CLI flags): the HTTP API and the CLI use it. */
export type UncheckedProvisionerClient = ProvisionerClientOf<CallInputs>;

const WAIT_POLL_MS = 100;

function toDesiredView(record: DesiredRecord, fingerprintKey: string | undefined, clusterOf: ClusterViewer | undefined): DesiredView {
  // A warm pool's claim (SPEC 30) is the workers' business: the answer's `origin` said it.
  const { spec, failed, lease, address, claim: _claim, claimedBy: _claimedBy, cluster: _cluster, ...kept } = record;
  // The lease as its expiry and action: its version and warning are the timers' business.
  // SPEC 32: the cluster (several clusters only), its VM Unknown while the cluster is away.
  const rest: DesiredView = { ...(lease === undefined ? kept : { ...kept, expiresAt: lease.expiresAt, onExpiry: lease.onExpiry }), tenant: ownerOf(record), ...addressShown(address), ...clusterOf?.(record) };
  // Redacted again, like a job view's failure: a worker that did not know a secret may have written it.
  const view: DesiredView = failed === undefined ? rest : { ...rest, failed: { ...failed, reason: redactSecrets(failed.reason) } };
  // The registry holds what createVm recorded: a validated create with its uid.
  return spec === undefined ? view : { ...view, spec: withTextsSummarized(spec as Omit<CreateSpec, 'image'>, fingerprintKey) };
}

/** SPEC 32: a create that sent no image takes its cluster's default image (several clusters). */
function namesImage(input: unknown): boolean {
  return typeof input === 'object' && input !== null && (input as Record<string, unknown>).image !== undefined;
}

function orThrow<T>(result: { ok: true; value: T } | { ok: false; errors: ValidationError['fields'] }): T {
  if (!result.ok) throw new ValidationError(result.errors);
  return result.value;
}

/** Opens no connection yet: the first call connects. Throws ProducerConfigError naming a bad config key. */
export function createProvisionerClient(options: ProvisionerClientOptions): ProvisionerClient {
  return createUncheckedProvisionerClient(options);
}

function warnOfMismatch(mismatch: ConfigMismatch): void {
  process.emitWarning(mismatch.message, { type: 'ProducerConfigWarning', code: 'PVEP_PRODUCER_CONFIG' });
}

/** How a call reaches the session, set up on the first call that needs it. */
type Ready = () => Promise<ProducerSession>;

type WriteCalls = Pick<UncheckedProvisionerClient, 'createVm' | 'deleteVm' | 'checkVm' | 'enqueueJob' | 'renewLease'>;
type ReadCalls = Pick<UncheckedProvisionerClient, 'getJob' | 'waitForJob' | 'getVm' | 'listVms' | 'listPools'>;

/**
 * The calls that enqueue, as `tenant` makes them (SPEC 34): its scope
 * checked first, input checked against `limitsNow`, then the intent
 * protocol (queue/intent.ts) or the door; another tenant's name is not found.
 */
function writeCalls(ready: Ready, limitsNow: () => Promise<JobLimits>, tenant: Tenant): WriteCalls {
  const enqueueJob = async (job: NameJob, input: unknown): Promise<EnqueueResult> => {
    refuseReadScope(tenant, job);
    // Typed callers cannot name a create or delete here; untyped ones are told (they record desired state).
    if (!(NAME_JOBS as readonly string[]).includes(job)) throw new ValidationError([{ field: 'job', message: `must be one of ${NAME_JOBS.join(', ')}` }]);
    const value = orThrow(validateJobData(job, input, await limitsNow()));
    const { door, registry } = await ready();
    // Its view, events and webhooks reach the name's owner (and admins) alone; the default tenant's data is as before tenants.
    const owned = { ...value, ...ownerField({ tenant: await ownerForJob(registry, tenant, value.name) }) };
    const added = await door.accept(() => door.add(job, owned));
    return { jobId: added.id ?? '', name: value.name, existing: false };
  };
  return {
    async createVm(input) {
      refuseReadScope(tenant, 'create');
      const value = orThrow(validateJobData('create', input, await limitsNow()));
      return acceptCreate(await ready(), value, { tenant, defaultedImage: !namesImage(input) });
    },
    async deleteVm(input) {
      refuseReadScope(tenant, 'delete');
      const value = orThrow(validateJobData('delete', input, await limitsNow()));
      // A member is the refill's to drain (SPEC 30); its own deletes take acceptDelete directly.
      const reserved = reservedNameProblem(value.name);
      if (reserved !== undefined) throw new ValidationError([reserved]);
      return acceptDelete(await ready(), value, tenant);
    },
    checkVm: (input) => enqueueJob('check', input),
    enqueueJob,
    async renewLease(name, renewal, options) {
      refuseReadScope(tenant, 'renew a lease');
      const merged = typeof renewal === 'object' && renewal !== null && !Array.isArray(renewal) ? { ...renewal, ...options } : renewal;
      const value = orThrow(checkRenewal(name, merged, await limitsNow()));
      const session = await ready();
      await refuseOthersName(session.registry, tenant, value.name);
      return acceptRenewal(session, value);
    },
  };
}

/** The pools' Redis state (SPEC 30) a client lists pools from unless given another. */
function redisPoolStore(redis: RedisClient, prefix: string): Pick<PoolStore, 'members' | 'demand'> {
  return new RedisPoolStore(redis, prefix);
}

/** The calls that read jobs and names, texts summarized with the fingerprint key when there is one; the warm pools from `poolStore`. */
function readCalls(ready: Ready, fingerprintKey: FingerprintKeySource, poolStore: Pick<PoolStore, 'members' | 'demand'> | undefined): ReadCalls {
  const getJob = async (id: string): Promise<JobView | undefined> => {
    // No job of ours has another shape, and such an id may name one of BullMQ's own keys.
    if (!isJobIdShape(id)) return undefined;
    const { vm, system } = (await ready()).queues;
    const key = await fingerprintKey();
    for (const queue of [vm, system]) {
      const view = await viewJob(queue, id, key);
      if (view) return view;
    }
    return undefined;
  };
  // Every wait on a job in this process shares one read of it per WAIT_POLL_MS.
  const watch = new JobWatch(getJob, WAIT_POLL_MS);
  return {
    getJob,
    waitForJob: (id, waitOptions) => waitForJob(watch, getJob, id, waitOptions),
    async getVm(name) {
      const { registry, limits, lastHealth } = await ready();
      const record = await registry.get(name);
      return record && toDesiredView(record, await fingerprintKey(), await clusterViewer(limits, lastHealth));
    },
    async listVms(query) {
      const parsed = orThrow(parseVmListQuery(query));
      const { registry, limits, lastHealth } = await ready();
      const page = orThrow(withConfiguredCluster(parsed, limits.clusters?.map((cluster) => cluster.name)));
      const { records, more } = await registry.page(page);
      const last = records.at(-1);
      const key = await fingerprintKey();
      const clusterOf = await clusterViewer(limits, lastHealth);
      return { vms: records.map((record) => toDesiredView(record, key, clusterOf)), nextCursor: more && last !== undefined ? encodeCursor(last.name) : null };
    },
    async listPools() {
      const { pools } = await ready();
      return poolStore === undefined ? { pools: [] } : listPoolViews(pools, poolStore);
    },
  };
}

type Calls = WriteCalls & ReadCalls;

/** The call with its Redis-down error a RedisUnavailableError, also when Redis went after the call's `connected` (SPEC 24). */
function guardedOn(redis: RedisClient) {
  return <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (err) {
        throw asRedisUnavailable(redis, err);
      }
    };
}

/** Every call's Redis-down error is a RedisUnavailableError (guardedOn). */
function unavailableAsOne(redis: RedisClient, calls: Calls): Calls {
  const guarded = guardedOn(redis);
  return {
    createVm: guarded(calls.createVm),
    deleteVm: guarded(calls.deleteVm),
    checkVm: guarded(calls.checkVm),
    enqueueJob: guarded(calls.enqueueJob),
    renewLease: guarded(calls.renewLease),
    getJob: guarded(calls.getJob),
    waitForJob: guarded(calls.waitForJob),
    getVm: guarded(calls.getVm),
    listVms: guarded(calls.listVms),
    listPools: guarded(calls.listPools),
  };
}

export function createUncheckedProvisionerClient(options: ProvisionerClientOptions): UncheckedProvisionerClient {
  // Checked, like the config, before a connection is made.
  const ownTenant = clientTenant(options.tenant);
  const given = options.config === undefined ? undefined : producerConfig(options.config);
  const givenLimits = given && limitsFromConfig(given);
  const target: RedisConnection = options.redis ?? { url: options.redisUrl };
  const redis = createProducerConnection(target);
  const prefix = keyPrefixOf(options.prefix, target);
  const acks = replicaAcks(redis, prefix, checkedReplicaAcks(target));
  const session = lazyProducerSession({
    redis,
    prefix,
    given,
    acks,
    onConfigMismatch: options.onConfigMismatch ?? warnOfMismatch,
    ...(options.leaseTimers === undefined ? {} : { leaseTimers: options.leaseTimers }),
  });
  const ready = (): Promise<ProducerSession> => session.ready();
  // Given a config, input is checked before Redis is touched; without, against the published config.
  const limitsNow = async (): Promise<JobLimits> => givenLimits ?? (await ready()).limits;
  // One set of reads (one watch of each job waited on) for every tenant's calls.
  const reads = readCalls(ready, fingerprintKeySource(options.fingerprintKeyFile), (options.poolStore ?? redisPoolStore)(redis, prefix));
  const guarded = guardedOn(redis);
  // The session's connection, once it is up (its first call connects it).
  const connected = async (): Promise<RedisClient> => {
    await ready();
    return redis;
  };
  const callsOf = (tenant: Tenant): TenantClientOf<CallInputs> => ({
    ...unavailableAsOne(redis, { ...writeCalls(ready, limitsNow, tenant), ...tenantReads(tenant, reads) }),
    tenantUsage: guarded(() => tenantUsage(connected, prefix, tenant)),
    listClusters: guarded(async () => ({ clusters: clusterViews(clusterShapesOfLimits(await limitsNow()), await readLastHealth(await connected(), prefix)) })),
    listTenantUsage: guarded((known?: readonly Tenant[]) => listTenantUsage(connected, prefix, tenant, known)),
  });
  return {
    ...callsOf(ownTenant),
    asTenant: callsOf,
    async close() {
      await session.close();
      redis.disconnect();
    },
  };
}
