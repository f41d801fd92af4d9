// Finding a VM at the uid's VMIDs (SPEC 11, 12 step 1, correction 1):
// walk the probe sequence Create used, past VMIDs held by VMs with other
// names, and stop at the first gap. A locked or nameless entry is a
// clone in progress, never an absence.
import type { ClusterResource } from '../proxmox/api.js';
import { probeSequence, type VmidRange } from './vmid.js';

export type ChainAnswer =
  | { kind: 'absent' }
  | { kind: 'busy'; entry: ClusterResource; why: string }
  | { kind: 'named'; entry: ClusterResource & { node: string; vmid: number } };

export function qemuEntries(resources: ClusterResource[]): (ClusterResource & { node: string; vmid: number })[] {
  return resources.filter(
    (r): r is ClusterResource & { node: string; vmid: number } =>
      r.type === 'qemu' && typeof r.vmid === 'number' && typeof r.node === 'string',
  );
}

/** A lock (other than a hibernation's `suspended`) or `status: unknown`: in progress (F8). */
function busyReason(entry: ClusterResource): string | undefined {
  if (entry.lock && entry.lock !== 'suspended') return `VM ${entry.vmid} holds lock '${entry.lock}'`;
  if (entry.status === 'unknown') return `VM ${entry.vmid} is in status unknown`;
  if (entry.name === undefined) return `VM ${entry.vmid} has no name yet (clone in progress)`;
  return undefined;
}

export function walkChain(resources: ClusterResource[], name: string, uid: string, range: VmidRange): ChainAnswer {
  const byVmid = new Map(resources.filter((r) => typeof r.vmid === 'number').map((r) => [r.vmid, r]));
  for (const vmid of probeSequence(uid, range)) {
    const entry = byVmid.get(vmid);
    if (!entry) return { kind: 'absent' };
    if (entry.type !== 'qemu' || typeof entry.node !== 'string') continue;
    const busy = busyReason(entry);
    if (busy !== undefined) return { kind: 'busy', entry, why: busy };
    if (entry.name === name) return { kind: 'named', entry: { ...entry, node: entry.node, vmid } };
  }
  return { kind: 'absent' };
}

/**
 * An entry that may carry one of the names: it does, or it has no name yet
 * in our VMID range. A clone that has just ended stays nameless in
 * /cluster/resources until pvestatd's next cycle (SPEC 23); its config has
 * the name, so the caller reads it.
 */
export function maybeNamed(entry: ClusterResource, names: ReadonlySet<string>, range: VmidRange): boolean {
  if (entry.name !== undefined) return names.has(entry.name);
  return typeof entry.vmid === 'number' && entry.vmid >= range.min && entry.vmid <= range.max;
}
