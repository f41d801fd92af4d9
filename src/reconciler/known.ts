// The VMs a sweep may confirm from the listing alone (SPEC 26): per present
// name, the VMID and node its last job saw the name's VM at, when that job
// ran after the current desired state was recorded. The listing then
// needs only our tag and that name at that VMID on that node (list.ts
// knownEntry); every other VM has its config read. Why that is safe:
// docs/decisions.md, "A steady sweep reads no config".
import type { KnownVm } from '../provider/types.js';
import type { DesiredEntry } from './ports.js';

export function knownVms(entries: Iterable<DesiredEntry>): KnownVm[] {
  const byVmid = new Map<number, KnownVm | 'ambiguous'>();
  for (const entry of entries) {
    const vm = knownVmOf(entry);
    if (vm === undefined) continue;
    // Two names claiming one VMID: one of them is stale, so neither is trusted.
    byVmid.set(vm.vmid, byVmid.has(vm.vmid) ? 'ambiguous' : vm);
  }
  return [...byVmid.values()].filter((vm): vm is KnownVm => vm !== 'ambiguous');
}

function knownVmOf(entry: DesiredEntry): KnownVm | undefined {
  if (entry.state !== 'present' || entry.uid === undefined || entry.failed !== undefined) return undefined;
  const seen = entry.lastKnown;
  if (seen?.vmid === undefined || seen.node === undefined) return undefined;
  // Seen before this uid's generation was recorded, the pair may be an
  // earlier uid's VM (create, delete, create with a new uid).
  const seenAt = Date.parse(seen.at);
  const recordedAt = Date.parse(entry.updatedAt);
  if (Number.isNaN(seenAt) || Number.isNaN(recordedAt) || seenAt < recordedAt) return undefined;
  return { name: entry.name, uid: entry.uid, vmid: seen.vmid, node: seen.node };
}
