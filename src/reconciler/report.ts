// What a sweep found and did (SPEC 1 reconcile result, SPEC 5). With
// dryRun the same lists say what it would have done.

/**
 * `abandoned claim`: a pool member claimed by a create no longer present with the claiming uid, its VM not renamed (SPEC 30).
 * `name on another cluster`: its name is present in another cluster (SPEC 32) with another uid, so no record claims this VM here.
 */
export type OrphanReason = 'unknown name' | 'tombstoned name' | 'present with another uid' | 'abandoned claim' | 'name on another cluster';

export interface OrphanVmRef {
  name: string;
  uid: string;
  vmid: number;
  node: string;
  reason: OrphanReason;
  /** The name's generation the decision was made on. */
  generation: number;
  /** The delete job's id (absent in a dry run). */
  jobId?: string;
}

export interface UnknownVmRef {
  vmid: number;
  node: string;
  name?: string;
  why: string;
}

export interface SeedRef {
  name: string;
  node: string;
  volid: string;
  /** For a seed left on another node than its name's VM: where the VM is. */
  vmNode?: string;
}

export interface MissingRef {
  name: string;
  uid?: string;
  generation: number;
  jobId?: string;
  /** Its VM is there, but no job of the in-place change recorded at this generation ever ran (SPEC 2). */
  unapplied?: true;
}

/** A present name whose create failed Permanent: left alone until a new create (SPEC 2). */
export interface FailedCreateRef extends MissingRef {
  reason: string;
  /** The failed job. */
  failedJobId: string;
  failedAt: string;
}

/** A lease the sweep found past due, or an expired stop whose VM still runs (SPEC 31). */
export interface LeaseRef {
  name: string;
  version: number;
  generation: number;
  expiresAt: string;
  onExpiry: 'delete' | 'stop';
  /** Its expiry was recorded (a stop's) but its VM still runs: the stop job is what is looked for. */
  recorded?: true;
  /** The onExpiry job's id (absent in a dry run, or when the lease moved on). */
  jobId?: string;
}

/** An address pool's lease (SPEC 29) the sweep found with no VM and no present name. */
export interface AddressLeaseRef {
  name: string;
  uid: string;
  pool: string;
  address: string;
}

/** An address seen on a VM of ours (its last job's) inside a pool, that no lease of its name and uid holds (SPEC 29). */
export interface UnleasedAddressRef {
  name: string;
  uid: string;
  vmid: number;
  node: string;
  address: string;
  pool: string;
}

/** A tenant's quota hold (SPEC 34) the sweep found with no VM and no present name. */
export interface TenantHoldRef {
  name: string;
  uid: string;
  tenant: string;
}

export interface SweepError {
  action: 'delete-vm' | 'delete-seed' | 'create' | 'expire-lease' | 'free-address' | 'free-hold';
  name: string;
  message: string;
}

export interface SweepCounts {
  listed: number;
  ours: number;
  orphansDeleted: number;
  orphansSkipped: number;
  unknown: number;
  seedsDeleted: number;
  seedsSkipped: number;
  missingReenqueued: number;
  missingSkipped: number;
  /** Leases past due whose expiry the sweep ran (SPEC 31: its timer was lost or late). */
  leasesExpired: number;
  /** Address leases with no VM and no present name, freed (SPEC 29). */
  addressesFreed: number;
  /** Addresses of VMs of ours that no lease holds (SPEC 29). */
  addressesUnleased: number;
  /** Tenants' quota holds with no VM and no present name, freed (SPEC 34). */
  tenantHoldsFreed: number;
  errors: number;
}

export interface SweepReport {
  dryRun: boolean;
  /** The numbers of the lists below, for a glance (SPEC 1: counts and names). */
  counts: SweepCounts;
  startedAt: string;
  finishedAt: string;
  /** Distinct VMs seen, by the tag listing and the name lookups. */
  listed: number;
  /** Of those, the ones carrying our mark. */
  ours: number;
  orphans: {
    deleted: OrphanVmRef[];
    skippedYoung: OrphanVmRef[];
    skippedLocked: OrphanVmRef[];
    /** A job for the name is waiting or running; it is left to finish first. */
    skippedPending: OrphanVmRef[];
    /** Protected in Proxmox (SPEC 28): no delete is enqueued, since Proxmox would refuse it; listed each sweep until someone clears the flag. */
    protected: OrphanVmRef[];
    /** Left alone: config unreadable, mark incomplete, or a name this registry never recorded. */
    unknown: UnknownVmRef[];
  };
  seeds: {
    /** Seeds seen: the recorded ones, and the listed ones when storagesListed. */
    listed: number;
    /** This sweep listed the seed storages (the backstop, reconciler.seedListingEvery, or a sweep asked for by hand), not only the records. */
    storagesListed: boolean;
    /** The seeds the listing found that no record names (an older release's, one uploaded by hand), whatever became of them. */
    foundByListing: SeedRef[];
    deleted: SeedRef[];
    skippedYoung: SeedRef[];
    skippedLocked: SeedRef[];
    /** A job was pending, or the name became present while the sweep ran. */
    skippedWanted: SeedRef[];
    /** No VM, but under a name this registry never recorded: not provably ours. */
    neverRecorded: SeedRef[];
  };
  missing: {
    reenqueued: MissingRef[];
    skippedYoung: MissingRef[];
    skippedLocked: MissingRef[];
    /** Found, but reconciler.recreateMissing is off. */
    notRecreated: MissingRef[];
    /** Its create failed Permanent: not re-created until a new create arrives (SPEC 2). */
    failedPermanent: FailedCreateRef[];
  };
  /** The backstop of the lease timers (SPEC 31). */
  leases: {
    /** Past due with no expiry timer pending: the sweep ran the expiry. */
    expired: LeaseRef[];
    /** Past due, but its expiry timer (or its onExpiry job) is pending: left to it. */
    pending: LeaseRef[];
  };
  /** The address pools' leases (SPEC 29). */
  addresses: {
    /** No VM of ours carries the name and uid, and the name is not present with the uid: freed, the address resting its cooldown. */
    freed: AddressLeaseRef[];
    /** The same, but a job for the name is pending or holds its lock: left to that job. */
    pending: AddressLeaseRef[];
    /** Seen on a VM of ours, inside a pool, held by no lease of its name and uid: reported, never changed. */
    unleased: UnleasedAddressRef[];
  };
  /** The tenants' quota holds (SPEC 34). */
  tenantHolds: {
    /** No VM of ours carries the name and uid, and the name is not present with the uid: freed, its sizes off the tenant's usage. */
    freed: TenantHoldRef[];
    /** The same, but a job for the name is pending or holds its lock: left to that job. */
    pending: TenantHoldRef[];
  };
  errors: SweepError[];
}

export function emptyReport(dryRun: boolean, startedAt: Date): SweepReport {
  return {
    dryRun,
    counts: { listed: 0, ours: 0, orphansDeleted: 0, orphansSkipped: 0, unknown: 0, seedsDeleted: 0, seedsSkipped: 0, missingReenqueued: 0, missingSkipped: 0, leasesExpired: 0, addressesFreed: 0, addressesUnleased: 0, tenantHoldsFreed: 0, errors: 0 },
    startedAt: startedAt.toISOString(),
    finishedAt: startedAt.toISOString(),
    listed: 0,
    ours: 0,
    orphans: { deleted: [], skippedYoung: [], skippedLocked: [], skippedPending: [], protected: [], unknown: [] },
    seeds: { listed: 0, storagesListed: false, foundByListing: [], deleted: [], skippedYoung: [], skippedLocked: [], skippedWanted: [], neverRecorded: [] },
    missing: { reenqueued: [], skippedYoung: [], skippedLocked: [], notRecreated: [], failedPermanent: [] },
    leases: { expired: [], pending: [] },
    addresses: { freed: [], pending: [], unleased: [] },
    tenantHolds: { freed: [], pending: [] },
    errors: [],
  };
}

export function countsOf(report: SweepReport): SweepCounts {
  const { orphans, seeds, missing } = report;
  return {
    listed: report.listed,
    ours: report.ours,
    orphansDeleted: orphans.deleted.length,
    orphansSkipped: orphans.skippedYoung.length + orphans.skippedLocked.length + orphans.skippedPending.length + orphans.protected.length,
    unknown: orphans.unknown.length,
    seedsDeleted: seeds.deleted.length,
    seedsSkipped: seeds.skippedYoung.length + seeds.skippedLocked.length + seeds.skippedWanted.length + seeds.neverRecorded.length,
    missingReenqueued: missing.reenqueued.length,
    missingSkipped: missing.skippedYoung.length + missing.skippedLocked.length + missing.notRecreated.length + missing.failedPermanent.length,
    leasesExpired: report.leases.expired.length,
    addressesFreed: report.addresses.freed.length,
    addressesUnleased: report.addresses.unleased.length,
    tenantHoldsFreed: report.tenantHolds.freed.length,
    errors: report.errors.length,
  };
}

/** One line for the job log and the CLI. */
export function summarize(report: SweepReport): string {
  const verb = report.dryRun ? 'would delete' : 'deleted';
  return [
    `listed ${report.listed}, ours ${report.ours}`,
    `orphan VMs ${verb} ${report.orphans.deleted.length}` +
      ` (skipped: young ${report.orphans.skippedYoung.length}, locked ${report.orphans.skippedLocked.length},` +
      ` pending ${report.orphans.skippedPending.length}, protected ${report.orphans.protected.length}; unknown ${report.orphans.unknown.length})`,
    `seeds ${verb} ${report.seeds.deleted.length} of ${report.seeds.listed}${report.seeds.storagesListed ? ' (storages listed)' : ' (from records)'}`,
    `missing VMs ${report.dryRun ? 'would re-enqueue' : 're-enqueued'} ${report.missing.reenqueued.length}` +
      (report.missing.failedPermanent.length > 0 ? ` (left until a new create, their create failed Permanent: ${report.missing.failedPermanent.length})` : ''),
    ...(report.leases.expired.length + report.leases.pending.length > 0
      ? [`leases past due ${report.dryRun ? 'would expire' : 'expired'} ${report.leases.expired.length} (pending ${report.leases.pending.length})`]
      : []),
    ...addressSummary(report),
    ...holdSummary(report),
    `errors ${report.errors.length}`,
  ].join('; ');
}

/** The summary's part for the address pools (SPEC 29), only when the sweep found something there. */
function addressSummary(report: SweepReport): string[] {
  const { freed, pending, unleased } = report.addresses;
  if (freed.length + pending.length + unleased.length === 0) return [];
  return [`address leases ${report.dryRun ? 'would free' : 'freed'} ${freed.length} (pending ${pending.length}), unleased addresses seen ${unleased.length}`];
}

/** The summary's part for the tenants' holds (SPEC 34), only when the sweep found one to free. */
function holdSummary(report: SweepReport): string[] {
  const { freed, pending } = report.tenantHolds;
  if (freed.length + pending.length === 0) return [];
  return [`tenant holds ${report.dryRun ? 'would free' : 'freed'} ${freed.length} (pending ${pending.length})`];
}
