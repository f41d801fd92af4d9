// What a job is to the worker: a name, a validator for its stored data,
// and a handler `(data, deps, ctx)` (STYLE: dependencies passed in, never
// imported as singletons). jobs/index.ts registers them.
import type { Logger } from '../src/log.js';
import type { NodeHealth, OperationContext, Provider } from '../src/provider/types.js';
import type { DesiredHead, DesiredRecord, LastKnown } from '../src/desired-state.js';
import type { JobDataOf, JobLimits, JobName, ReconcileJobData, Validation } from '../src/job-table/schema.js';
import type { AddressLease } from '../src/addresses/types.js';
import type { ReleasedAddress } from '../src/addresses/address-pool-store.js';
import type { PoolJobDeps } from '../src/pools/job-deps.js';
import type { HeldTenantHold, TenantHold } from '../src/tenants/hold-store.js';

/** What a lease's expiry found (src/queue/registry.ts ExpiryOutcome, as the jobs see it). */
export type LeaseExpiryOutcome =
  | { kind: 'recorded' | 'existing'; action: 'delete' | 'stop'; jobId: string; expiresAt: string }
  | { kind: 'not-due'; dueInMs: number }
  | { kind: 'gone' | 'renewed' };

/** A lease's two timers' work (SPEC 31), built by the worker from src/queue. */
export interface LeaseDeps {
  /** Records and enqueues the lease's onExpiry intent when this version is current and due. */
  expire(name: string, version: number): Promise<LeaseExpiryOutcome>;
  /** Sends vm.expiring once for this lease version, while it is current and not expired. */
  warn(name: string, version: number, jobId: string): Promise<{ warned: boolean; expiresAt?: string }>;
}

/**
 * Address leases (SPEC 29) as the jobs end them, built by the worker from
 * src/addresses: a lease ends when its VM is gone, never while its name
 * is present with its uid (a create of it may be using it).
 */
export interface AddressLeaseDeps {
  leaseOf(name: string, uid: string): Promise<AddressLease | undefined>;
  /** The name's VM of this uid is gone, or with no uid every VM of the name: their leases end, but the present uid's. */
  vmGone(name: string, uid?: string): Promise<ReleasedAddress[]>;
  /** A create failed Permanent and left no VM: its lease ends while that failure is on the name (a new create clears it). */
  createFailed(name: string, uid: string): Promise<ReleasedAddress | undefined>;
}

/**
 * Tenants' quota holds (SPEC 34) as the jobs end them, built by the worker
 * from src/tenants: a hold ends when its VM is gone, at the moments an
 * address lease does, never while its name is present with its uid.
 */
export interface TenantHoldDeps {
  holdOf(name: string, uid: string): Promise<TenantHold | undefined>;
  /** The name's VM of this uid is gone, or with no uid every VM of the name: their holds end, but the present uid's. */
  vmGone(name: string, uid?: string): Promise<HeldTenantHold[]>;
  /** A create failed Permanent and left no VM: its hold ends while that failure is on the name (a new create clears it). */
  createFailed(name: string, uid: string): Promise<HeldTenantHold | undefined>;
  /** A create of this generation completed: the hold is what the VM has (an in-place change held the larger sizes until now). */
  settle(name: string, uid: string, generation: number, size: { cores: number; memoryMiB: number; diskGiB: number }): Promise<void>;
}

export interface JobDeps {
  provider: Provider;
  registry: {
    get(name: string): Promise<DesiredRecord | undefined>;
  };
  /** Whether a create or delete holds the name now (check, SPEC 3). */
  isNameLocked(name: string): Promise<boolean>;
  saveHealth(nodes: NodeHealth[]): Promise<void>;
  /** One reconcile sweep (SPEC 5), built by the worker from src/reconciler. */
  reconcile(data: ReconcileJobData, ctx: OperationContext): Promise<unknown>;
  leases: LeaseDeps;
  addresses: AddressLeaseDeps;
  tenantHolds: TenantHoldDeps;
  /** The warm pools (SPEC 30); absent: none configured, so no claim, member or refill. */
  pools?: PoolJobDeps;
  logger: Logger;
}

export interface JobContext extends OperationContext {
  jobId: string;
  /**
   * What the job leaves as the name's last-known state (SPEC 2 registry),
   * with `ifState` only while the name is desired so. The worker writes it
   * when the handler has ended, whether it returned or threw; for the name
   * whose lock the job holds, in the same call that releases the lock. A
   * later call for the same name replaces an earlier one.
   */
  setLastKnown(name: string, lastKnown: LastKnown, ifState?: DesiredRecord['state']): void;
}

export interface JobDefinition<N extends JobName> {
  name: N;
  validate(data: unknown, limits: JobLimits): Validation<JobDataOf[N]>;
  /** The name whose lock the job holds while it runs (SPEC 3). */
  lockedName?(data: JobDataOf[N]): string;
  /**
   * True when a newer intent for the name makes this job moot (SPEC 2).
   * It sees the record's head only (state, uid, generation), read with the
   * lock in one Redis call.
   */
  superseded?(data: JobDataOf[N], record: DesiredHead | undefined): boolean;
  handler(data: JobDataOf[N], deps: JobDeps, ctx: JobContext): Promise<unknown>;
  /**
   * A Permanent failure is recorded on the locked name with its reason
   * (SPEC 2), so the reconciler does not run the job again until a new
   * request for the name arrives.
   */
  recordsPermanentFailure?: boolean;
  /**
   * After a Permanent failure was recorded, still holding the name's
   * lock: what the failure leaves to clean up (SPEC 29: a create's address
   * lease when no VM is left). Its own errors are logged, never thrown.
   */
  afterPermanentFailure?(data: JobDataOf[N], deps: JobDeps, ctx: JobContext): Promise<void>;
}

/** A definition with its data type erased, as the worker holds it. */
export interface AnyJobDefinition {
  name: JobName;
  validate(data: unknown, limits: JobLimits): Validation<unknown>;
  lockedName?(data: unknown): string;
  superseded?(data: unknown, record: DesiredHead | undefined): boolean;
  handler(data: unknown, deps: JobDeps, ctx: JobContext): Promise<unknown>;
  recordsPermanentFailure?: boolean;
  afterPermanentFailure?(data: unknown, deps: JobDeps, ctx: JobContext): Promise<void>;
}

/**
 * Erases the data type (method parameters are bivariant, so no cast is
 * needed): the worker only ever passes a definition the data its own
 * validate returned.
 */
export function defineJob<N extends JobName>(definition: JobDefinition<N>): AnyJobDefinition {
  return definition;
}

/** SPEC 2: the name's current generation is newer than the job's. */
export function isOlderGeneration(generation: number, record: DesiredHead | undefined): boolean {
  return record !== undefined && record.generation > generation;
}
