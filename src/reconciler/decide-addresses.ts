// The sweep's look at the address pools (SPEC 29), pure: which leases have
// no VM and no present name (to free), and which addresses seen on VMs of
// ours no lease holds (to report). Nothing new is asked of Proxmox: the
// address is the one the VM's last job saw (the record's lastKnown),
// taken as this VM's only when that job saw it at this VMID.
//
// The rules that keep a lease in use:
// - its name is present with its uid: a create of it may be using it;
// - a VM of ours (or one whose config could not be read) carries its name
//   with its uid, or with no uid known;
// - a VM whose name is not known yet (a clone pvestatd has not named,
//   SPEC 23) may be any name's: no lease is freed while one is listed.
import type { ListedVm } from '../provider/types.js';
import type { Inventory } from './inventory.js';
import type { DesiredEntry, LeasedAddress } from './ports.js';
import type { UnleasedAddressRef } from './report.js';

export interface AddressPlan {
  /** Leases with no VM and no present name. */
  orphanLeases: LeasedAddress[];
  /** Addresses of VMs of ours, inside a pool, that no lease of their name and uid held when the leases were read. */
  unleased: UnleasedAddressRef[];
}

/**
 * `keptBy`: the VMs and names that keep a lease in use; with several
 * clusters (SPEC 32) every listed cluster's VMs, while the addresses to
 * report are those of this inventory's VMs.
 */
export function planAddresses(inventory: Inventory, leases: readonly LeasedAddress[], poolOf: (address: string) => string | undefined, keptBy: HeldView = inventory): AddressPlan {
  const inUseNow = heldInUse(keptBy);
  const orphanLeases = leases.filter((lease) => !inUseNow(lease));
  return { orphanLeases, unleased: unleasedAddresses(inventory, leases, poolOf) };
}

/** What the rules above read: the VMs listed and the registry's names. */
export type HeldView = Pick<Inventory, 'vms' | 'entries'>;

/** Whether what a name+uid holds (a lease, a tenant's hold, SPEC 34) is still in use, by the rules above. */
export function heldInUse(inventory: HeldView): (held: { name: string; uid: string }) => boolean {
  const unseenName = inventory.vms.some((vm) => vm.name === undefined && vm.ours !== false);
  return (held) => unseenName || inUse(held, inventory.entries.get(held.name), inventory.vms);
}

function inUse(held: { name: string; uid: string }, entry: DesiredEntry | undefined, vms: readonly ListedVm[]): boolean {
  if (entry?.state === 'present' && (entry.uid === undefined || entry.uid === held.uid)) return true;
  return vms.some((vm) => vm.name === held.name && vm.ours !== false && (vm.ours === 'unknown' || vm.uid === undefined || vm.uid === held.uid));
}

function unleasedAddresses(inventory: Inventory, leases: readonly LeasedAddress[], poolOf: (address: string) => string | undefined): UnleasedAddressRef[] {
  const held = new Set(leases.map((lease) => `${lease.name} ${lease.uid} ${lease.address}`));
  const found: UnleasedAddressRef[] = [];
  for (const vm of inventory.vms) {
    if (vm.ours !== true || vm.name === undefined || vm.uid === undefined) continue;
    const entry = inventory.entries.get(vm.name);
    const seen = entry?.lastKnown;
    if (entry?.state !== 'present' || entry.uid !== vm.uid || seen?.address === undefined || seen.vmid !== vm.vmid) continue;
    const pool = poolOf(seen.address);
    if (pool === undefined || held.has(`${vm.name} ${vm.uid} ${seen.address}`)) continue;
    found.push({ name: vm.name, uid: vm.uid, vmid: vm.vmid, node: vm.node, address: seen.address, pool });
  }
  return found;
}
