// Step 2 of a sweep (SPEC 5): from what is there and what is wanted, the
// candidates for action. Pure: locks and pending jobs are asked later, in
// act.ts, as close to the action as possible.
//
// The rules that keep wanted and foreign things safe:
// - a VM is a candidate only when the provider says it is ours (our mark)
//   and it has a name and a uid; 'unknown' (config unreadable) is left alone;
// - and only under a name this registry once recorded: with the registry's
//   data lost, or another installation sharing the tag, nothing is an orphan;
// - a present entry claims the VM of its name whose mark carries its uid;
// - a seed is kept while any VM of its name is seen, and while its name is
//   present (the create will upload it again); except a seed on a node's
//   own (not shared) storage when its node has no VM of its name and the
//   present entry's VM lives on another node: the create that made that VM
//   used the seed on that node, so this one was left behind (a delete
//   stopped between destroy and seed delete, then a create placed elsewhere);
// - no seed is deleted while a nameless VM whose config could not be read is
//   listed: it may be the VM of any seed's name (a clone before pvestatd
//   named it, SPEC 23);
// - an orphan whose config has Proxmox's protection flag is a candidate
//   only to be reported: act.ts enqueues no delete that could only fail
//   (SPEC 28), and each sweep reads the flag again from the config;
// - a present entry whose VM is there but whose in-place change (SPEC 2)
//   no job ever ran for is missing as well: its create is added again;
// - a present entry whose lease is past due (SPEC 31) is not missing: its
//   expiry is the backstop's to run (the timer's script checks the lease
//   again), nor is one a lease's expiry stopped; an expired stop whose VM
//   still runs has its expiry run again (its stop made sure of);
// - a claimed pool member (SPEC 30) is never missing (its VM is being
//   renamed to its claimer); its VM still under the member's name is an
//   orphan once the claimer is not present with the claiming uid (deleted,
//   or created again with another uid, before its create ran), else kept.
// - with several clusters (SPEC 32) the entries are this cluster's names
//   only; a VM here of a name present in another cluster is an orphan of
//   this one when its uid is not the one that record claims, and is left
//   alone when it is (deleting it would end that name's address lease and
//   quota hold with it; which copy is wanted is an operator's call).
import type { ListedVm, SeedIso } from '../provider/types.js';
import type { DesiredEntry } from './ports.js';
import type { Inventory } from './inventory.js';
import type { AddressPlan } from './decide-addresses.js';
import type { HoldPlan } from './decide-holds.js';
import type { FailedCreateRef, LeaseRef, MissingRef, OrphanReason, OrphanVmRef, SeedRef, UnknownVmRef } from './report.js';

/** Why a seed whose name has a VM is still a candidate: that VM is elsewhere. */
interface LeftBehind {
  /** The present entry's uid, whose VM is on `vmNode`. */
  uid: string;
  vmNode: string;
}

interface Candidate<T> {
  ref: T;
  /** Younger than the grace period: left alone this sweep. */
  young: boolean;
}

export interface Plan {
  listed: number;
  ours: number;
  /** `protected`: its config has Proxmox's protection flag, so a delete job could only fail (SPEC 28). */
  orphanVms: (Candidate<OrphanVmRef> & { protected?: true })[];
  unknownVms: UnknownVmRef[];
  orphanSeeds: (Candidate<SeedRef> & { seed: SeedIso; leftBehind?: LeftBehind })[];
  /** Seeds with no VM under a name this registry never recorded: left alone. */
  strangerSeeds: SeedRef[];
  missing: Candidate<MissingRef>[];
  /** Present names with no VM whose create failed Permanent: not re-created (SPEC 2). */
  failedCreates: FailedCreateRef[];
  /** Leases past due, and expired stops whose VM still runs (SPEC 31). */
  expiredLeases: LeaseRef[];
  /** The address pools' leases to free and addresses to report (SPEC 29, decide-addresses.ts); absent when the sweep has no pools' leases. */
  addresses?: AddressPlan;
  /** The tenants' quota holds to free (SPEC 34, decide-holds.ts); absent when the sweep has no holds' book. */
  tenantHolds?: HoldPlan;
}

/** Older than the grace period or not: a time unknown or unreadable counts as young. */
type IsYoung = (createdMs: number | undefined) => boolean;

export function decide(inventory: Inventory, now: Date, graceSeconds: number): Plan {
  const isYoung: IsYoung = (createdMs) => createdMs === undefined || Number.isNaN(createdMs) || now.getTime() - createdMs < graceSeconds * 1000;
  const plan: Plan = { listed: inventory.vms.length, ours: 0, orphanVms: [], unknownVms: [], orphanSeeds: [], strangerSeeds: [], missing: [], failedCreates: [], expiredLeases: [] };
  planVms(inventory, isYoung, plan);
  // Looked up per seed and per entry: grouped once, not scanned each time.
  const vmsByName = groupByName(inventory.vms);
  planSeeds(inventory, vmsByName, isYoung, plan);
  planLeases(inventory, vmsByName, now, plan);
  planMissing(inventory, vmsByName, isYoung, plan, now);
  return plan;
}

/** A present entry's lease past due, its expiry not recorded (SPEC 31). */
function isPastDue(entry: DesiredEntry, now: Date): boolean {
  const lease = entry.lease;
  return entry.state === 'present' && lease !== undefined && lease.expiredAt === undefined && Date.parse(lease.expiresAt) <= now.getTime();
}

/** Leases past due; and expired stops whose VM of theirs still runs (the stop job lost). */
function planLeases(inventory: Inventory, vmsByName: Map<string, ListedVm[]>, now: Date, plan: Plan): void {
  for (const entry of inventory.entries.values()) {
    const lease = entry.lease;
    if (entry.state !== 'present' || lease === undefined) continue;
    const runs = () => (vmsByName.get(entry.name) ?? []).some((vm) => mayBeClaimedBy(vm, entry) && vm.status !== 'stopped');
    const stillRuns = lease.expiredAt !== undefined && lease.onExpiry === 'stop' && runs();
    if (!isPastDue(entry, now) && !stillRuns) continue;
    const ref: LeaseRef = { name: entry.name, version: lease.version, generation: entry.generation, expiresAt: lease.expiresAt, onExpiry: lease.onExpiry };
    plan.expiredLeases.push(stillRuns ? { ...ref, recorded: true } : ref);
  }
}

/** Our VMs no present entry claims: orphans, or unknown when something needed to judge them is missing. */
function planVms(inventory: Inventory, isYoung: IsYoung, plan: Plan): void {
  for (const vm of inventory.vms) {
    if (vm.ours === false) continue;
    if (vm.ours === 'unknown') {
      plan.unknownVms.push(unknownRef(vm, 'its config could not be read'));
      continue;
    }
    plan.ours++;
    if (vm.name === undefined || vm.uid === undefined) {
      plan.unknownVms.push(unknownRef(vm, 'its mark has no uid or it has no name'));
      continue;
    }
    const entry = inventory.entries.get(vm.name);
    const elsewhere = entry === undefined ? inventory.elsewhere?.get(vm.name) : undefined;
    if (elsewhere !== undefined && (elsewhere.uid === undefined || elsewhere.uid === vm.uid)) {
      plan.unknownVms.push(unknownRef(vm, `its name is present in cluster ${elsewhere.cluster} ${elsewhere.uid === undefined ? 'with no uid, claiming every VM of the name' : 'with this uid'}: a VM outside its name's cluster, left for an operator`));
      continue;
    }
    const reason = elsewhere === undefined ? (orphanReason(entry, vm.uid) ?? abandonedClaim(entry, inventory)) : 'name on another cluster';
    if (reason === undefined) continue;
    const generation = entry?.generation ?? inventory.generations.get(vm.name);
    if (generation === undefined) {
      plan.unknownVms.push(unknownRef(vm, 'its name was never recorded by this registry (another installation, or lost registry data)'));
      continue;
    }
    const created = vm.createdAt === undefined ? undefined : Date.parse(vm.createdAt);
    if (created === undefined || Number.isNaN(created)) {
      plan.unknownVms.push(unknownRef(vm, 'its mark has no written-at-create, so its age is unknown'));
      continue;
    }
    const ref: OrphanVmRef = { name: vm.name, uid: vm.uid, vmid: vm.vmid, node: vm.node, reason, generation };
    plan.orphanVms.push({ ref, young: isYoung(created), ...(vm.protected ? { protected: true as const } : {}) });
  }
}

function groupByName(vms: ListedVm[]): Map<string, ListedVm[]> {
  const vmsByName = new Map<string, ListedVm[]>();
  for (const vm of vms) {
    if (vm.name === undefined) continue;
    const group = vmsByName.get(vm.name);
    if (group) group.push(vm);
    else vmsByName.set(vm.name, [vm]);
  }
  return vmsByName;
}

/** Seeds with no VM of their name (or left behind on another node), and seeds of names never recorded. */
function planSeeds(inventory: Inventory, vmsByName: Map<string, ListedVm[]>, isYoung: IsYoung, plan: Plan): void {
  const unseenName = inventory.vms.some((vm) => vm.name === undefined && vm.ours === 'unknown');
  for (const seed of inventory.seeds) {
    const created = seed.ctime === undefined ? undefined : seed.ctime * 1000;
    const entry = inventory.entries.get(seed.name);
    const named = vmsByName.get(seed.name);
    if (named !== undefined) {
      const leftBehind = leftBehindBy(seed, entry, named);
      if (leftBehind && !unseenName) plan.orphanSeeds.push({ ref: { ...seedRef(seed), vmNode: leftBehind.vmNode }, seed, young: isYoung(created), leftBehind });
      continue;
    }
    if (entry?.state === 'present') continue;
    if (!inventory.generations.has(seed.name)) {
      plan.strangerSeeds.push(seedRef(seed));
      continue;
    }
    if (!unseenName) plan.orphanSeeds.push({ ref: seedRef(seed), seed, young: isYoung(created) });
  }
}

/** Present names with no VM of theirs (or an in-place change no create applied), and those whose create failed. */
function planMissing(inventory: Inventory, vmsByName: Map<string, ListedVm[]>, isYoung: IsYoung, plan: Plan, now: Date): void {
  for (const entry of inventory.entries.values()) {
    if (entry.state !== 'present' || entry.stopped !== undefined || entry.claimedBy !== undefined || isPastDue(entry, now)) continue;
    const ref: MissingRef = { name: entry.name, generation: entry.generation };
    if (entry.uid !== undefined) ref.uid = entry.uid;
    if ((vmsByName.get(entry.name) ?? []).some((vm) => mayBeClaimedBy(vm, entry))) {
      // A VM is there; an in-place change recorded on it with no create left to apply it is missing too.
      if (entry.changing === entry.generation && entry.failed === undefined) plan.missing.push({ ref: { ...ref, unapplied: true }, young: isYoung(Date.parse(entry.updatedAt)) });
      continue;
    }
    if (entry.failed !== undefined) {
      plan.failedCreates.push({ ...ref, reason: entry.failed.reason, failedJobId: entry.failed.jobId, failedAt: entry.failed.at });
      continue;
    }
    plan.missing.push({ ref, young: isYoung(Date.parse(entry.updatedAt)) });
  }
}

/** Why no present entry claims this VM of ours; undefined when one does. */
function orphanReason(entry: DesiredEntry | undefined, uid: string): OrphanReason | undefined {
  if (entry === undefined) return 'unknown name';
  if (entry.state === 'absent') return 'tombstoned name';
  // A present entry without a uid claims every VM of its name: never guess.
  if (entry.uid === undefined || entry.uid === uid) return undefined;
  return 'present with another uid';
}

/** A claimed member's entry whose claimer is no longer present with the claiming uid (SPEC 30); its new generations of that uid keep the claim. */
function abandonedClaim(entry: DesiredEntry | undefined, inventory: Inventory): OrphanReason | undefined {
  if (entry?.claimedBy === undefined) return undefined;
  const [claimer = '', uid = ''] = entry.claimedBy.split(' ');
  const now = inventory.entries.get(claimer);
  return now?.state === 'present' && now.uid === uid ? undefined : 'abandoned claim';
}

/**
 * The present entry's VM when it is on another node than this seed, the
 * seed's storage is the node's own, and no VM of the name (ours, unknown
 * or foreign) is on the seed's node.
 */
function leftBehindBy(seed: SeedIso, entry: DesiredEntry | undefined, named: ListedVm[]): LeftBehind | undefined {
  if (seed.shared !== false || entry?.state !== 'present' || entry.uid === undefined) return undefined;
  if (named.some((vm) => vm.node === seed.node)) return undefined;
  const claimed = named.find((vm) => vm.ours === true && vm.uid === entry.uid);
  return claimed && { uid: entry.uid, vmNode: claimed.node };
}

/** A VM that is, or might be, the present entry's: then nothing is missing. */
function mayBeClaimedBy(vm: ListedVm, entry: DesiredEntry): boolean {
  // Stryker disable next-line ConditionalExpression: its callers pass only VMs of the entry's name (vmsByName), so the name test never decides there
  if (vm.name !== entry.name || vm.ours === false) return false;
  if (vm.ours === 'unknown' || vm.uid === undefined || entry.uid === undefined) return true;
  return vm.uid === entry.uid;
}

function unknownRef(vm: ListedVm, why: string): UnknownVmRef {
  const ref: UnknownVmRef = { vmid: vm.vmid, node: vm.node, why };
  if (vm.name !== undefined) ref.name = vm.name;
  return ref;
}

function seedRef(seed: SeedIso): SeedRef {
  return { name: seed.name, node: seed.node, volid: seed.volid };
}
