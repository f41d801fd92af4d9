// What SPEC 2's desired-state registry holds for a name, as every layer
// sees it: jobs read records and leave last-known states, the worker and
// the client pass them on. Types only; the registry that reads and
// writes them in Redis is src/queue/registry.ts.
import type { PoolClaim } from './pools/types.js';
import type { AddressLease } from './addresses/types.js';

export interface LastKnown {
  state: string;
  address?: string;
  vmid?: number;
  node?: string;
  at: string;
}

/** A create of the name's current generation that failed Permanent (SPEC 2). */
export interface RecordedFailure {
  reason: string;
  jobId: string;
  generation: number;
  at: string;
}

/**
 * A name's lease (SPEC 31): when its VM ends unless renewed, and how.
 * Set by a create with a ttl (or leases.defaultSeconds), moved by a
 * renewal, cleared by a delete or a create without one.
 */
export interface Lease {
  /** RFC 3339: the VM ends at this time unless the lease is renewed. */
  expiresAt: string;
  /** What runs at expiry: a delete, or a stop that keeps the name recorded (SPEC 31). */
  onExpiry: 'delete' | 'stop';
  /** 1 for the create's lease, one more per renewal: an expiry or warning job of an older version does nothing. */
  version: number;
  /** When `vm.expiring` was sent for this version (once per lease version). */
  warnedAt?: string;
  /** When this version's expiry recorded its onExpiry intent (SPEC 31); a stop's lease keeps it, a delete's goes with the name. */
  expiredAt?: string;
}

export interface DesiredRecord {
  name: string;
  state: 'present' | 'absent';
  uid?: string;
  generation: number;
  spec?: Record<string, unknown>;
  updatedAt: string;
  jobId?: string;
  lastKnown?: LastKnown;
  /** Uids this name had before, deleted and then replaced by a new uid (oldest first). */
  retiredUids?: string[];
  /** The tenant that created the name (SPEC 34); absent on records from before tenants: the default tenant's. */
  tenant?: string;
  /**
   * The cluster the name lives in (SPEC 32), written with its spec in the
   * several-clusters form and kept on its tombstone; absent: the first
   * cluster (src/queue/record-cluster.ts clusterOfRecord).
   */
  cluster?: string;
  /** Set while the present generation's create failed Permanent; a new create clears it. */
  failed?: RecordedFailure;
  /** The generation of an in-place change (SPEC 2) no job of which has taken the name's lock yet; the reconciler adds its create again when none is pending (SPEC 5). */
  changing?: number;
  /** The lease of the present generation (SPEC 31); absent: the VM lives until deleted. */
  lease?: Lease;
  /** The generation of the stop a lease's expiry recorded (SPEC 31): the name stays present, its VM stopped, until a create of the same spec starts it again. */
  stopped?: number;
  /** The address lease of the present uid (SPEC 29), taken at the door; absent: DHCP. */
  address?: AddressLease;
  /** The warm pool's member the present generation's create claimed at the door (SPEC 30); absent: the cold way. Kept on the tombstone, so the delete ends a member its create never renamed. */
  claim?: PoolClaim;
  /** A warm pool member's record: `<claimer name> <claimer uid>` once a create claimed it (SPEC 30). */
  claimedBy?: string;
}

/**
 * What the generation check reads of a record (SPEC 2), with the lock in
 * one call: all that a job's superseded() may look at.
 */
export type DesiredHead = Pick<DesiredRecord, 'name' | 'state' | 'uid' | 'generation'>;

/** A job's last-known state of its name, to be written into the name's record. */
export interface LastKnownWrite {
  lastKnown: LastKnown;
  /** Written only while the name's desired state is this one; whatever it is when absent. */
  ifState?: DesiredRecord['state'];
}
