// What the sweep (SPEC 5) needs from the rest of the service, as narrow
// interfaces. The registry, the name locks and the queues of the job layer
// (src/queue/) satisfy them through small adapters in this folder; tests
// use in-memory doubles. Nothing here knows BullMQ or Redis.
import type { Provider } from '../provider/types.js';
import type { TenantHoldRef, UnleasedAddressRef } from './report.js';

/** One name the registry knows (SPEC 2): present, or a tombstone. */
export interface DesiredEntry {
  name: string;
  state: 'present' | 'absent';
  /** The uid a present entry claims; its VM is the one whose mark carries it. */
  uid?: string;
  generation: number;
  /** RFC 3339; when the desired state was last recorded. */
  updatedAt: string;
  /**
   * The present generation's create failed Permanent (SPEC 2): its VM is
   * not re-created until a new create arrives.
   */
  failed?: { reason: string; jobId: string; at: string };
  /** Set while no job of an in-place change (SPEC 2) recorded at this generation has taken the name's lock. */
  changing?: number;
  /**
   * Where the name's last job (a create, a check) saw its VM, and when
   * (RFC 3339): the pair a steady sweep confirms from the listing (SPEC 26).
   */
  lastKnown?: { vmid?: number; node?: string; address?: string; at: string };
  /** The present generation's lease (SPEC 31); `expiredAt` once its expiry recorded the onExpiry intent. */
  lease?: { expiresAt: string; version: number; onExpiry: 'delete' | 'stop'; expiredAt?: string };
  /** The generation of the stop a lease's expiry recorded (SPEC 31): the VM stays, stopped; nothing is missing. */
  stopped?: number;
  /** A warm pool's member a create claimed (SPEC 30): `<claimer name> <claimer uid>`. */
  claimedBy?: string;
  /** The cluster the record names (SPEC 32: its create's `cluster`, several-clusters form only); absent: the first cluster. */
  cluster?: string;
}

export interface DesiredStateReader {
  /** Every name the registry knows, present or tombstoned. */
  listAll(): Promise<DesiredEntry[]>;
  /** One name's current entry, read again just before a seed delete. */
  get(name: string): Promise<DesiredEntry | undefined>;
  /**
   * The last generation handed out per name, kept for ever (SPEC 2). A name
   * missing here was never recorded by this registry: a VM under it may be
   * another installation's, or the registry lost its data, so it is never
   * swept away.
   */
  knownGenerations(): Promise<Map<string, number>>;
}

export interface NameLocks {
  /** True while a job (or another sweep) holds the name's lock (SPEC 3). */
  isHeld(name: string): Promise<boolean>;
  /**
   * Runs `fn` holding the name's lock, so no create can upload a seed
   * while the sweep deletes one; `held` when someone else has it.
   */
  tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>;
}

export interface JobLookup {
  /** A job for this name is waiting, delayed or active. */
  hasPendingJob(name: string): Promise<boolean>;
  /** The expiry timer of this lease version of the name is waiting, delayed or active (SPEC 31). */
  hasPendingExpiry(name: string, version: number): Promise<boolean>;
}

export interface TargetedDelete {
  name: string;
  /** Only the VM whose mark carries this uid may be touched (SPEC 1 delete). */
  uid: string;
  /** Why, for the job log: `orphan: unknown name`, ... */
  reason: string;
  /**
   * The name's generation when the sweep read the registry (its record's,
   * or for a name whose tombstone expired the last one handed out). The job
   * layer records no new desired state for this delete, refuses it when the
   * name moved on since, and the job carries it, so any later intent for
   * the name supersedes it.
   */
  seenGeneration: number;
  /**
   * The name goes too, as by a caller's delete (recorded absent, its
   * delete job added): a claimed pool member whose claimer is gone (SPEC
   * 30), present with the VM's uid, which no other delete may touch.
   */
  nameGoes?: true;
  /**
   * The cluster whose sweep found the VM (SPEC 32, several-clusters form
   * only): the delete runs there, not in the cluster the name's record
   * names (or the first, for a name with no record).
   */
  cluster?: string;
}

export interface CreateAgain {
  name: string;
  /** The present entry's generation the sweep saw; a newer one wins. */
  generation: number;
}

/** A present name's lease past due, or an expired stop whose VM still runs (SPEC 31). */
export interface ExpiredLease {
  name: string;
  version: number;
}

export interface Enqueuer {
  /**
   * The lease's expiry, as its timer would run it (SPEC 31): its onExpiry
   * intent recorded, or made sure of, and its job added; the job's id, or
   * undefined when the lease moved on (renewed, gone) since the sweep read it.
   */
  expireLease(request: ExpiredLease): Promise<string | undefined>;
  /** Adds a delete job for one VM (name and uid); returns the job id. */
  enqueueDelete(request: TargetedDelete): Promise<string>;
  /** Adds the present entry's create again (SPEC 2: no accepted request lost). */
  enqueueCreate(request: CreateAgain): Promise<string>;
}

/**
 * The part of the provider the sweep uses (SPEC 14, 11, 26): one listing
 * of our tagged VMs and of every named one (listTaggedOrNamed), the seeds
 * (recorded, and listed from the storages when the backstop is due), and
 * a name's look-up again under its lock before a seed delete.
 */
export type SweepProvider = Pick<Provider, 'listTaggedOrNamed' | 'findByName' | 'listSeeds' | 'listRecordedSeeds' | 'deleteSeed'>;

/** An address pool's lease (SPEC 29), as the sweep judges it. */
export interface LeasedAddress {
  name: string;
  uid: string;
  pool: string;
  address: string;
}

/** The address pools' leases (SPEC 29) as the sweep reads and ends them. */
export interface AddressLeaseBook {
  /** Every lease. Read before the registry: a lease taken after this read is not judged this sweep. */
  list(): Promise<LeasedAddress[]>;
  /** Ends name+uid's lease unless the name is present with that uid by now (checked in the same script); what it freed. */
  free(name: string, uid: string): Promise<LeasedAddress | undefined>;
  /** The configured pool whose cidr holds the address; undefined when none does. */
  poolOf(address: string): string | undefined;
  /** Whether name+uid's lease holds this address now. */
  holds(name: string, uid: string, address: string): Promise<boolean>;
}

/** The tenants' quota holds (SPEC 34) as the sweep reads and ends them. */
export interface TenantHoldBook {
  /** Every hold. Read before the registry: a hold taken after this read is not judged this sweep. */
  list(): Promise<TenantHoldRef[]>;
  /** Ends name+uid's hold unless the name is present with that uid by now (checked in the same script); what it freed. */
  free(name: string, uid: string): Promise<TenantHoldRef | undefined>;
}

/**
 * When a sweep lists the seed storages besides reading the seed records
 * (SPEC 5, 26): the backstop that finds seeds no record names (uploaded by
 * an older release or by hand, a record lost).
 */
export interface SeedListingSchedule {
  /** Whether this sweep lists; a dry run asks without moving the schedule on. */
  due(dryRun: boolean): Promise<boolean>;
  /** The listing of a due sweep succeeded; a dry run's moves nothing on. */
  listed(dryRun: boolean): Promise<void>;
}

interface Clock {
  now(): Date;
}

interface SweepSettings {
  /** VMs, seeds and entries younger than this are left alone. */
  graceSeconds: number;
  /** Enqueue a create for a present name whose VM is gone. */
  recreateMissing: boolean;
}

export type FindingKind =
  | 'orphan_vm'
  | 'orphan_vm_young'
  | 'orphan_vm_locked'
  | 'orphan_vm_pending'
  | 'orphan_vm_protected'
  | 'vm_unknown'
  | 'orphan_seed'
  | 'orphan_seed_young'
  | 'orphan_seed_locked'
  | 'seed_never_recorded'
  | 'missing_vm'
  | 'missing_vm_young'
  | 'missing_vm_locked'
  | 'missing_vm_failed'
  | 'lease_expired'
  | 'lease_expiry_pending'
  | 'address_lease_freed'
  | 'address_lease_pending'
  | 'address_unleased'
  | 'tenant_hold_freed'
  | 'tenant_hold_pending'
  | 'error';

export interface SweepDeps {
  registry: DesiredStateReader;
  locks: NameLocks;
  jobs: JobLookup;
  enqueuer: Enqueuer;
  provider: SweepProvider;
  clock: Clock;
  settings: SweepSettings;
  /** Without one, every sweep lists the seed storages. */
  seedListing?: SeedListingSchedule;
  /** Counts findings for metrics (SPEC 9: reconcilerFindings{kind}). */
  onFinding?: (kind: FindingKind) => void;
  /** One line per action and skip, for the job log. */
  log?: (line: string) => void;
  /** The address pools' leases (SPEC 29); without them the sweep leaves leases alone. */
  addresses?: AddressLeaseBook;
  /** An address seen on a VM of ours that no lease holds (SPEC 29): the warning and its counter. */
  onUnleasedAddress?: (seen: UnleasedAddressRef) => void;
  /** The tenants' quota holds (SPEC 34); without them the sweep leaves holds alone. */
  tenantHolds?: TenantHoldBook;
  /**
   * The cluster this sweep judges, in the several-clusters form (SPEC 32):
   * its Proxmox calls carry it (the provider routes by it) and its deletes
   * run there. Absent: the one-cluster form.
   */
  cluster?: string;
}
