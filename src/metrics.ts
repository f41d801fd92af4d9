// Prometheus metrics of SPEC 9: jobs by name and outcome, job duration,
// Proxmox calls by method and status with latency, lock waits,
// reconciler findings, the shared request budget's waits (SPEC 26), the
// pvedaemon slots per node (SPEC 28), webhook deliveries (SPEC 27), leases (SPEC 31),
// unleased addresses (SPEC 29), the warm pools' claims and misses (SPEC 30) and tenants' refusals (SPEC 34). Each Metrics owns its own prom-client Registry
// (never the global default one), so tests build fresh ones and the
// worker sees only the narrow JobMetrics / ProxmoxCallMetrics interfaces.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the worker reports about jobs (passed in its deps). */
export interface JobMetrics {
  /** A job ended: outcome is e.g. completed, failed, superseded, retried. */
  jobFinished(job: string, outcome: string, seconds: number): void;
  /** A job found its name's lock held and went back to delayed (SPEC 3). */
  lockWaited(job: string): void;
  /** A sweep found `count` things of one kind (orphan, seed, missing, ...). */
  reconcilerFindings(kind: string, count: number): void;
}

/** What the webhook delivery worker reports (SPEC 27). */
export interface WebhookMetrics {
  /** One delivery attempt ended: delivered (a 2xx), retried (it will be sent again) or failed (its last attempt). */
  webhookDelivered(event: string, outcome: 'delivered' | 'retried' | 'failed', seconds: number): void;
}

/** What the Proxmox client reports about each call. */
export interface ProxmoxCallMetrics {
  /** `method` is the operation (the seam method: clone, upload), not the HTTP verb. */
  proxmoxCall(method: string, status: string, seconds: number): void;
}

/** What the shared Proxmox request budget reports (SPEC 26). */
export interface RequestBudgetMetrics {
  /** A call was let through after `seconds` in the budget; `held` when it had to wait for a slot. */
  budgetTaken(seconds: number, held: boolean): void;
  /** Redis could not be asked, so the call went by this process's own pace. */
  budgetUnavailable(): void;
}

/** What the pvedaemon slots report (SPEC 28). */
export interface DaemonSlotMetrics {
  /** A protected call got its slot on `node` after `seconds`; `held` when every slot was taken and it had to wait. */
  daemonSlotTaken(node: string, seconds: number, held: boolean): void;
  /** This process took (+1) or freed (-1) a slot on `node`. */
  daemonSlotHeld(node: string, change: 1 | -1): void;
  /** Redis could not be asked, so the call counted against this process's own slots. */
  daemonSlotUnavailable(): void;
}

/** What a lease's end reports (SPEC 31). */
export interface LeaseMetrics {
  /** A lease's expiry recorded its onExpiry intent (`delete` or `stop`). */
  leaseExpired(onExpiry: string): void;
  /** The onExpiry job of an expired lease ended the VM, `seconds` after the lease's expiresAt. */
  leaseEnded(onExpiry: string, seconds: number): void;
}

/** What the sweep reports of the address pools (SPEC 29). */
export interface AddressMetrics {
  /** A sweep saw an address of a VM of ours inside `pool` that no lease holds. */
  addressUnleasedSeen(pool: string): void;
}

/** What the warm pools report (SPEC 30): the worker's claims, the door's and the worker's misses. The idle gauge is the web process's (src/web/pool-metrics.ts). */
export interface PoolMetrics {
  /** A create of `pool` took an idle VM, `seconds` from its accept to its job's end. */
  poolClaimed(pool: string, seconds: number): void;
  /** A create matching `pool` went the cold way: the pool had no idle VM, or the claimed VM was gone. */
  poolMissed(pool: string): void;
}

/** What the door reports of tenants (SPEC 34). The usage and quota gauges are the web process's (src/web/tenant-metrics.ts). */
export interface TenantMetrics {
  /** A create of `tenant` was refused: `reason` is the quota it would pass (vms, cores, memoryMiB, diskGiB) or `rate` (createsPerMinute). */
  tenantRefused(tenant: string, reason: string): void;
}

export interface Metrics extends JobMetrics, ProxmoxCallMetrics, RequestBudgetMetrics, DaemonSlotMetrics, WebhookMetrics, LeaseMetrics, AddressMetrics, PoolMetrics, TenantMetrics {
  readonly registry: Registry;
  readonly jobsTotal: Counter<'job_name' | 'outcome'>;
  readonly jobDuration: Histogram<'job_name'>;
  readonly proxmoxCalls: Counter<'method' | 'status'>;
  readonly proxmoxLatency: Histogram<'method'>;
  readonly lockWaits: Counter<'job_name'>;
  readonly reconcilerFindingsTotal: Counter<'kind'>;
  readonly budgetWait: Histogram;
  readonly budgetWaits: Counter;
  readonly budgetUnavailableTotal: Counter;
  readonly daemonSlotWait: Histogram<'node'>;
  readonly daemonSlotWaits: Counter<'node'>;
  readonly daemonSlotsHeld: Gauge<'node'>;
  readonly daemonSlotUnavailableTotal: Counter;
  readonly webhookDeliveries: Counter<'event' | 'outcome'>;
  readonly webhookDuration: Histogram<'event'>;
  readonly leasesExpired: Counter<'on_expiry'>;
  readonly leaseEndLag: Histogram<'on_expiry'>;
  readonly addressUnleasedSeenTotal: Counter<'pool'>;
  readonly poolClaimsTotal: Counter<'pool'>;
  readonly poolMissesTotal: Counter<'pool'>;
  readonly poolClaimDuration: Histogram;
  readonly tenantRefusalsTotal: Counter<'tenant' | 'reason'>;
}

export interface MetricsOptions {
  /** Also collect Node's process metrics (CPU, memory, event loop). */
  processMetrics?: boolean;
}

/** prom-client's default gauges left out of the registry (see createMetrics). */
const PROM_CLIENT_GAUGES_NAMED_TOTAL = ['pvep_nodejs_active_handles_total', 'pvep_nodejs_active_requests_total', 'pvep_nodejs_active_resources_total'] as const;

/** Makes metrics that register in one registry. */
interface MetricMaker {
  counter<L extends string = string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  histogram<L extends string = string>(name: string, help: string, buckets: number[], labelNames?: readonly L[]): Histogram<L>;
  gauge<L extends string = string>(name: string, help: string, labelNames?: readonly L[]): Gauge<L>;
}

function metricMaker(registry: Registry): MetricMaker {
  return {
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers: [registry] }),
    histogram: (name, help, buckets, labelNames = []) => new Histogram({ name, help, labelNames, buckets, registers: [registry] }),
    gauge: (name, help, labelNames = []) => new Gauge({ name, help, labelNames, registers: [registry] }),
  };
}

/** Jobs: how they ended and how long they ran. */
function jobEndArea(make: MetricMaker): Pick<Metrics, 'jobsTotal' | 'jobDuration' | 'jobFinished'> {
  const jobsTotal = make.counter('pvep_jobs_total', 'Jobs that ended, by job name and outcome.', ['job_name', 'outcome']);
  const jobDuration = make.histogram('pvep_job_duration_seconds', 'Time a job ran, from start to end, by job name.', [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600], ['job_name']);
  return {
    jobsTotal,
    jobDuration,
    jobFinished(job, outcome, seconds) {
      jobsTotal.inc({ job_name: job, outcome });
      jobDuration.observe({ job_name: job }, seconds);
    },
  };
}

/** Jobs that waited for their name's lock, and the reconciler's findings. */
function lockAndSweepArea(make: MetricMaker): Pick<Metrics, 'lockWaits' | 'reconcilerFindingsTotal' | 'lockWaited' | 'reconcilerFindings'> {
  const lockWaits = make.counter('pvep_lock_waits_total', 'Jobs that found their name locked and were delayed (SPEC 3).', ['job_name']);
  const reconcilerFindingsTotal = make.counter('pvep_reconciler_findings_total', 'Things the reconciler found, by kind (SPEC 5).', ['kind']);
  return {
    lockWaits,
    reconcilerFindingsTotal,
    lockWaited(job) {
      lockWaits.inc({ job_name: job });
    },
    reconcilerFindings(kind, count) {
      if (count > 0) reconcilerFindingsTotal.inc({ kind }, count);
    },
  };
}

/** Proxmox API calls: how many by operation and status, and their latency. */
function proxmoxCallArea(make: MetricMaker): Pick<Metrics, 'proxmoxCalls' | 'proxmoxLatency' | keyof ProxmoxCallMetrics> {
  const proxmoxCalls = make.counter('pvep_proxmox_calls_total', 'Proxmox API calls, by operation (the client method: clone, upload, ...) and HTTP status (error when no answer came).', ['method', 'status']);
  const proxmoxLatency = make.histogram('pvep_proxmox_call_duration_seconds', 'Proxmox API call latency, by operation (the client method: clone, upload, ...).', [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], ['method']);
  return {
    proxmoxCalls,
    proxmoxLatency,
    proxmoxCall(method, status, seconds) {
      proxmoxCalls.inc({ method, status });
      proxmoxLatency.observe({ method }, seconds);
    },
  };
}

/** The shared request budget (SPEC 26). */
function budgetArea(make: MetricMaker): Pick<Metrics, 'budgetWait' | 'budgetWaits' | 'budgetUnavailableTotal' | keyof RequestBudgetMetrics> {
  const budgetWait = make.histogram(
    'pvep_proxmox_budget_wait_seconds',
    'Time a Proxmox call waited for the shared request budget (proxmox.maxRequestsPerSecond) before it was sent; 0 when it went at once.',
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );
  const budgetWaits = make.counter('pvep_proxmox_budget_waits_total', 'Proxmox calls the shared request budget held back (SPEC 26).');
  const budgetUnavailableTotal = make.counter('pvep_proxmox_budget_unavailable_total', 'Proxmox calls paced by the worker alone because Redis did not answer the request budget.');
  return {
    budgetWait,
    budgetWaits,
    budgetUnavailableTotal,
    budgetTaken(seconds, held) {
      budgetWait.observe(seconds);
      if (held) budgetWaits.inc();
    },
    budgetUnavailable() {
      budgetUnavailableTotal.inc();
    },
  };
}

/** The pvedaemon slots per node (SPEC 28). */
function daemonSlotArea(make: MetricMaker): Pick<Metrics, 'daemonSlotWait' | 'daemonSlotWaits' | 'daemonSlotsHeld' | 'daemonSlotUnavailableTotal' | keyof DaemonSlotMetrics> {
  const daemonSlotWait = make.histogram(
    'pvep_proxmox_daemon_slot_wait_seconds',
    'Time a protected Proxmox call (one that runs in a pvedaemon worker) waited for one of its node\'s proxmox.daemonSlotsPerNode slots, by node; 0 when it went at once (SPEC 28).',
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    ['node'],
  );
  const daemonSlotWaits = make.counter('pvep_proxmox_daemon_slot_waits_total', 'Protected Proxmox calls that found every pvedaemon slot of their node taken and waited, by node (SPEC 28).', ['node']);
  const daemonSlotsHeld = make.gauge(
    'pvep_proxmox_daemon_slots_held',
    'pvedaemon slots this process holds now, by node: calls in flight, and calls given up that pvedaemon may still run (SPEC 28). Summed over processes it is at most proxmox.daemonSlotsPerNode.',
    ['node'],
  );
  const daemonSlotUnavailableTotal = make.counter('pvep_proxmox_daemon_slot_unavailable_total', 'Protected Proxmox calls counted by the worker alone because Redis did not answer the pvedaemon slots.');
  return {
    daemonSlotWait,
    daemonSlotWaits,
    daemonSlotsHeld,
    daemonSlotUnavailableTotal,
    daemonSlotTaken(node, seconds, held) {
      daemonSlotWait.observe({ node }, seconds);
      if (held) daemonSlotWaits.inc({ node });
    },
    daemonSlotHeld(node, change) {
      daemonSlotsHeld.inc({ node }, change);
    },
    daemonSlotUnavailable() {
      daemonSlotUnavailableTotal.inc();
    },
  };
}

/** Webhook deliveries (SPEC 27). */
function webhookArea(make: MetricMaker): Pick<Metrics, 'webhookDeliveries' | 'webhookDuration' | keyof WebhookMetrics> {
  const webhookDeliveries = make.counter('pvep_webhook_deliveries_total', 'Webhook delivery attempts, by event and outcome: delivered (a 2xx), retried (sent again later), failed (the last attempt failed) (SPEC 27).', ['event', 'outcome']);
  const webhookDuration = make.histogram('pvep_webhook_delivery_duration_seconds', 'Time one webhook delivery attempt took, from its POST to the answer or the error, by event.', [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], ['event']);
  return {
    webhookDeliveries,
    webhookDuration,
    webhookDelivered(event, outcome, seconds) {
      webhookDeliveries.inc({ event, outcome });
      webhookDuration.observe({ event }, seconds);
    },
  };
}

/** Leases (SPEC 31): how many expired, and how long after its expiresAt each VM ended. */
function leaseArea(make: MetricMaker): Pick<Metrics, 'leasesExpired' | 'leaseEndLag' | keyof LeaseMetrics> {
  const leasesExpired = make.counter('pvep_leases_expired_total', "Leases whose expiry recorded their onExpiry job, by onExpiry (delete, stop) (SPEC 31).", ['on_expiry']);
  const leaseEndLag = make.histogram(
    'pvep_lease_end_lag_seconds',
    "Time from a lease's expiresAt to the end of its onExpiry job (the VM deleted or stopped), by onExpiry (SPEC 31).",
    [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    ['on_expiry'],
  );
  return {
    leasesExpired,
    leaseEndLag,
    leaseExpired(onExpiry) {
      leasesExpired.inc({ on_expiry: onExpiry });
    },
    leaseEnded(onExpiry, seconds) {
      leaseEndLag.observe({ on_expiry: onExpiry }, Math.max(0, seconds));
    },
  };
}

/** The address pools (SPEC 29): addresses the sweep saw on VMs of ours that no lease holds. The pools' gauge is the web process's (src/web/address-pool-metrics.ts). */
function addressArea(make: MetricMaker): Pick<Metrics, 'addressUnleasedSeenTotal' | keyof AddressMetrics> {
  const addressUnleasedSeenTotal = make.counter(
    'pvep_address_unleased_seen_total',
    'Addresses a reconcile sweep saw on a VM of ours, inside a pool, that no lease holds, by pool (SPEC 29): each sweep counts each such VM again.',
    ['pool'],
  );
  return {
    addressUnleasedSeenTotal,
    addressUnleasedSeen(pool) {
      addressUnleasedSeenTotal.inc({ pool });
    },
  };
}

/** The warm pools (SPEC 30): claims and misses per pool, and how long a claimed create took from accept to its job's end. */
function poolArea(make: MetricMaker): Pick<Metrics, 'poolClaimsTotal' | 'poolMissesTotal' | 'poolClaimDuration' | keyof PoolMetrics> {
  const poolClaimsTotal = make.counter('pvep_pool_claims_total', 'Creates that took an idle VM of a warm pool, by pool (SPEC 30).', ['pool']);
  const poolMissesTotal = make.counter('pvep_pool_misses_total', "Creates matching a warm pool's shape that went the cold way, the pool empty or the claimed VM gone, by pool (SPEC 30).", ['pool']);
  const poolClaimDuration = make.histogram('pvep_pool_claim_seconds', "Time from a claimed create's accept to its job's end: the VM renamed, its keys written, its address known (SPEC 30).", [0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 120]);
  return {
    poolClaimsTotal,
    poolMissesTotal,
    poolClaimDuration,
    poolClaimed(pool, seconds) {
      poolClaimsTotal.inc({ pool });
      poolClaimDuration.observe(Math.max(0, seconds));
    },
    poolMissed(pool) {
      poolMissesTotal.inc({ pool });
    },
  };
}

/** Tenants (SPEC 34): creates refused by a quota or the creates-per-minute rate; the caller passes only configured tenants' names, so the labels stay bounded. */
function tenantArea(make: MetricMaker): Pick<Metrics, 'tenantRefusalsTotal' | keyof TenantMetrics> {
  const tenantRefusalsTotal = make.counter(
    'pvep_tenant_refusals_total',
    "Creates refused for a tenant, by tenant and reason: the quota it would pass (vms, cores, memoryMiB, diskGiB) or rate (createsPerMinute) (SPEC 34).",
    ['tenant', 'reason'],
  );
  return {
    tenantRefusalsTotal,
    tenantRefused(tenant, reason) {
      tenantRefusalsTotal.inc({ tenant, reason });
    },
  };
}

/**
 * A registry of its own with every metric of SPEC 9, built area by area.
 * The /metrics text lists them in the order they register: the areas are
 * built in the order the text has always had (test/unit/metrics-order.test.ts).
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics) {
    collectDefaultMetrics({ register: registry, prefix: 'pvep_' });
    // Gauges named `_total`, which promtool refuses; each is the sum of its per-type gauge without the suffix.
    for (const name of PROM_CLIENT_GAUGES_NAMED_TOTAL) registry.removeSingleMetric(name);
  }
  const make = metricMaker(registry);
  return { registry, ...jobEndArea(make), ...proxmoxCallArea(make), ...lockAndSweepArea(make), ...budgetArea(make), ...daemonSlotArea(make), ...webhookArea(make), ...leaseArea(make), ...addressArea(make), ...poolArea(make), ...tenantArea(make) };
}

/** The process-wide metrics, shared by the worker and the web server of one process. */
export const metrics: Metrics = createMetrics({ processMetrics: true });
