// The intent protocol of SPEC 2, beside the door (enqueue.ts): a create
// or a delete first records the name's desired state with the next
// generation, then adds the job of that record under the id the registry
// gave it, or makes sure that job is there when the same intent was
// recorded before; both writes in one accept of the door, so the answer
// waits for the replicas (SPEC 22, 25). The producer library calls it
// (and through it the HTTP API and the CLI). Producer-safe: no worker code.
import { randomUUID } from 'node:crypto';
import { IN_PLACE_FIELDS } from '../job-table/create.schema.js';
import type { CreateJobInput } from '../job-table/create.schema.js';
import type { Lease } from '../desired-state.js';
import type { LeaseTimer } from './lease-timer.js';
import type { DeleteJobInput } from '../job-table/delete.schema.js';
import type { JobLimits } from '../job-table/schema.js';
import type { JobDoor, JobOrder } from './enqueue.js';
import { ConflictError, SpecConflictError, ValidationError } from './producer-errors.js';
import { admissionOf } from '../tenants/admission.js';
import { addressShown, poolOfCreate } from './address-door.js';
import type { DesiredStateRegistry } from './registry.js';
import { poolForCreate } from '../pools/pool-for-create.js';
import { shapeFingerprint } from '../pools/fingerprint.js';
import { POOL_MEMBER_PREFIX, type CreateSource } from '../pools/types.js';
import { DEFAULT_TENANT, ownerField, type Tenant } from '../tenants/types.js';
import { placedCreate } from './create-cluster.js';
import type { LastHealth } from './health-store.js';

export interface EnqueueResult {
  jobId: string;
  name: string;
  generation?: number;
  /** The create's uid: the one given, the present name's when none was given, or a new one. */
  uid?: string;
  /** True when an identical request was already there (SPEC 2 idempotence). */
  existing: boolean;
  /** A create of a present name that changes its VM in place (SPEC 2): the fields it changes (cores, memoryMiB, diskGiB). */
  changes?: string[];
  /** A create's: when the name's lease ends its VM (SPEC 31); absent: no lease. A repeat of the same create keeps it; another ttlSeconds moves it. */
  expiresAt?: string;
  /** A create's with a lease: what runs at expiresAt. */
  onExpiry?: Lease['onExpiry'];
  /** A create's on a pooled network (SPEC 29): the VM's static IPv4 address, leased at the accept; a repeat gets the same one. Absent: DHCP. */
  address?: string;
  /** The address pool it came from (proxmox.networks[].name). */
  addressPool?: string;
  /** A create's (SPEC 30): where its VM comes from, `pool` when it claimed a warm pool's idle VM at the accept (a repeat: when its create did), `cold` when its VM is cloned. */
  origin?: CreateSource;
  /** A create's that tried a warm pool (SPEC 30: a fresh record of the pool's shape, or a repeat of one that claimed): that pool's name; with origin cold, the pool had no idle VM (a miss, counted once). */
  warmPool?: string;
  /** A create's with several clusters (SPEC 32): the cluster its VM lives in, the one named, the name's own, or placement's choice. */
  cluster?: string;
}

/** How the service's own creates differ from a caller's (SPEC 30); a caller's create passes none. */
export interface CreateOptions {
  /** A warm pool's member made for this pool (the refill's): it may take the reserved name, never claims, and its record and job carry `poolMember`. */
  poolMember?: string;
  /** Where its job waits (the door's JobOrder): `background` behind every caller's job. Default `fifo`. */
  order?: JobOrder;
  /** The caller (SPEC 34): the name is recorded as its tenant's, its quotas checked; DEFAULT_TENANT when absent (and for a pool member, which is no tenant's). */
  tenant?: Tenant;
  /** The caller named no image (its default was filled): with several clusters (SPEC 32), the create's cluster's default image is taken. */
  defaultedImage?: boolean;
}

/** What an intent is recorded and enqueued with: the door, the registry, the limits the sizes default from, and the leases' timers (SPEC 31). */
export interface IntentWriters {
  door: JobDoor;
  registry: DesiredStateRegistry;
  limits: JobLimits;
  leaseTimer: LeaseTimer;
  /** The last health result (SPEC 19), which a create's placement among several clusters reads (SPEC 32); absent: none known, so the configured order decides. */
  lastHealth?: () => Promise<LastHealth | undefined>;
}

/** What the lease fields say: onExpiry is checked by the field table to be one of these. */
function leaseAction(value: string): Lease['onExpiry'] {
  return value === 'stop' ? 'stop' : 'delete';
}

/**
 * A validated create: its spec, lease and address lease (SPEC 29, on a
 * pooled network) recorded present, or, when its shape is a warm pool's
 * (SPEC 30), an idle member claimed in the same script (its lease moving
 * to the create), then its job carrying the address and the claim, then
 * the lease's timers (SPEC 31; a crash before them leaves the lease to the
 * sweep's backstop). Throws ValidationError (the door cannot tell the
 * pool, or a networkConfig on a pooled network), SpecConflictError (the
 * name is present with another spec), ConflictError (another uid holds the
 * name) or PoolExhaustedError, recording nothing. With no uid, a present
 * name's is taken. The lease is not spec: other terms on a present name
 * move it (from now), the same ones keep it. `options`: the service's
 * own create of a pool member (the refill's, src/pools/member-create.ts),
 * which never claims, carries `poolMember` in its record's spec (so a
 * create the sweep adds again is still the member's) and its job, and
 * waits in its order; any other create of a member's reserved name is a
 * ValidationError naming `name`, recording nothing.
 */
export async function acceptCreate(writers: IntentWriters, given: CreateJobInput, options: CreateOptions = {}): Promise<EnqueueResult> {
  const { door, registry, leaseTimer } = writers;
  const { poolMember, order = 'fifo', tenant = DEFAULT_TENANT } = options;
  // The members' names are the service's own (SPEC 30): only the refill's creates (poolMember) take them.
  if (poolMember === undefined && given.name.startsWith(POOL_MEMBER_PREFIX)) {
    throw new ValidationError([{ field: 'name', message: `must not start with "${POOL_MEMBER_PREFIX}": that prefix names the warm pools' VMs (SPEC 30)` }]);
  }
  // SPEC 32: the create's cluster, and what it is checked and compared with there; the one-cluster form's is the create as it came.
  const { value, limits, pools, compare, absentMeans } = await placedCreate(writers, given, options.defaultedImage === true);
  const pool = poolOfCreate(value, limits);
  const warm = poolMember === undefined ? poolForCreate(value, pools) : undefined;
  return door.accept(async () => {
    const { ttlSeconds, onExpiry, pool: _pool, ...vm } = value;
    const spec = { ...vm, uid: value.uid ?? randomUUID(), ...(poolMember === undefined ? {} : { poolMember }) };
    const lease = { ttlSeconds, onExpiry: leaseAction(onExpiry), expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
    const outcome = await registry.recordPresent(spec.name, spec.uid, spec, {
      uidGiven: value.uid !== undefined,
      compare,
      absentMeans,
      inPlace: IN_PLACE_FIELDS,
      lease,
      ...(pool === undefined ? {} : { pool }),
      ...(warm === undefined ? {} : { claim: { pool: warm.name, fingerprint: shapeFingerprint(warm) } }),
      // A member is the service's own (SPEC 30): no tenant's, no hold.
      ...(poolMember === undefined ? { tenant: admissionOf(tenant, value) } : {}),
    });
    if (outcome.kind === 'conflict') {
      if (outcome.differingFields.length > 0) throw new SpecConflictError(spec.name, outcome.existingUid, outcome.differingFields, outcome.uidDiffers);
      throw new ConflictError(spec.name, outcome.existingUid);
    }
    const carried = {
      ...(outcome.address === undefined ? {} : { address: outcome.address }),
      ...(outcome.claim === undefined ? {} : { claim: outcome.claim }),
      ...ownerField(outcome),
    };
    if (outcome.kind === 'existing') await door.ensure('create', { ...((await registry.get(spec.name))?.spec ?? { ...spec, uid: outcome.uid }), generation: outcome.generation, ...carried }, outcome.jobId, order);
    else await door.add('create', { ...spec, uid: outcome.uid, generation: outcome.generation, ...carried }, { recorded: outcome.jobId }, order);
    if (outcome.claimMissed === true && warm !== undefined) await refillAfterMiss(door, warm.name);
    // Set again on a repeat too: the timers of an in-place change's new generation, or of a lease whose first set was lost.
    if (outcome.lease !== undefined) await leaseTimer.set(spec.name, outcome.generation, outcome.lease);
    else if (outcome.leaseChange === 'clear') await leaseTimer.clear(spec.name);
    const shown = outcome.lease === undefined ? {} : { expiresAt: outcome.lease.expiresAt, onExpiry: outcome.lease.onExpiry };
    const origin: CreateSource = outcome.claim === undefined ? 'cold' : 'pool';
    const accepted = { jobId: outcome.jobId, name: spec.name, generation: outcome.generation, uid: outcome.uid, existing: outcome.kind === 'existing', ...shown, ...addressShown(outcome.address), origin, ...(warmPoolShown(warm?.name, outcome)), ...(spec.cluster === undefined ? {} : { cluster: spec.cluster }) };
    return outcome.kind === 'updated' ? { ...accepted, changes: outcome.changedFields } : accepted;
  });
}

/**
 * SPEC 30: a miss is demand the refill's target counts (the accept's
 * script recorded it), so the pool's refill runs now, as after a claim,
 * not at the schedule's next run (one waits per pool). Not added is no
 * failed create: the schedule's refill comes within 30 s.
 */
async function refillAfterMiss(door: IntentWriters['door'], pool: string): Promise<void> {
  try {
    await door.add('pool-refill', { pool }, { oneWaiting: pool }, 'background');
  } catch {
    // The create is recorded and its job added; the 30 s schedule is the backstop.
  }
}

/** SPEC 30: the pool a create tried, only when it did (a claim, or a fresh record's miss), so a miss is counted from the answer once. */
function warmPoolShown(pool: string | undefined, outcome: { claim?: { pool: string } | undefined; claimMissed?: boolean }): { warmPool?: string } {
  if (outcome.claim !== undefined) return { warmPool: outcome.claim.pool };
  return pool !== undefined && outcome.claimMissed === true ? { warmPool: pool } : {};
}

/**
 * A validated delete: the name recorded absent (its lease ended), then its
 * job, then the lease's timers cleared; a delete of another uid than the
 * present one records nothing and is a job of its own.
 */
export function acceptDelete({ door, registry, leaseTimer }: Omit<IntentWriters, 'limits'>, value: DeleteJobInput, tenant: Tenant = DEFAULT_TENANT): Promise<EnqueueResult> {
  return door.accept(async () => {
    const outcome = await registry.recordAbsent(value.name, value.uid, { name: tenant.name, admin: tenant.scope === 'admin' });
    // The job reaches the name's owner alone (SPEC 34): its views and webhooks.
    // SPEC 32: it runs where the name's VM is, though the name be created again in another cluster before it runs.
    const where = outcome.kind === 'foreign' || outcome.cluster === undefined ? {} : { cluster: outcome.cluster };
    const data = { ...value, generation: outcome.generation, ...ownerField(outcome), ...where };
    if (outcome.kind === 'foreign') {
      const added = await door.add('delete', data);
      return { jobId: added.id ?? '', name: value.name, generation: outcome.generation, existing: false };
    }
    if (outcome.kind === 'recorded') {
      await door.add('delete', data, { recorded: outcome.jobId });
      if (outcome.endedLease) await leaseTimer.clear(value.name);
    } else await door.ensure('delete', data, outcome.jobId);
    return { jobId: outcome.jobId, name: value.name, generation: outcome.generation, existing: outcome.kind === 'existing' };
  });
}
