// Finding a VM at the uid's VMIDs (SPEC 11, 12 step 1, correction 1):
// walk the probe sequence Create used, past VMIDs held by VMs with other
// names, and stop at the first gap. A locked or nameless entry is a
// clone in progress, never an absence; an entry under another name, or
// pvestatd's `VM <vmid>`, may be ours under a stale sample (SPEC 28), so
// it is never taken as an absence without its config.
import type { ClusterResource } from '../proxmox/api.js';
import { probeSequence, type VmidRange } from './vmid.js';

type Entry = ClusterResource & { node: string; vmid: number };

export type ChainAnswer =
  /** `unsure`: the chain's entries the listing alone cannot rule out (placeholderOrOther), in chain order. */
  | { kind: 'absent'; unsure: Entry[] }
  | { kind: 'busy'; entry: ClusterResource; why: string }
  | { kind: 'named'; entry: Entry };

export function qemuEntries(resources: ClusterResource[]): Entry[] {
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

/**
 * The name pvestatd gives a VM whose config has none (vmstatus's
 * `VM <vmid>`, audit 3.3): what a clone sampled in its temporary config
 * shows for up to a cycle after it ends. Never one of our names (SPEC 1:
 * a DNS label has no space), so it says nothing about whose VM it is.
 */
export function isPlaceholderName(entry: ClusterResource): boolean {
  return entry.name === `VM ${String(entry.vmid)}`;
}

/**
 * Walks the uid's VMIDs to the first gap. An unlocked entry under another
 * name is probed past, but kept in `unsure`: pvestatd's sample may be a
 * destroyed VM's (kept 5 minutes at its VMID) or `VM <vmid>` (a clone
 * sampled in its temporary config), so only its config can tell (SPEC 28).
 */
export function walkChain(resources: ClusterResource[], name: string, uid: string, range: VmidRange): ChainAnswer {
  const byVmid = new Map(resources.filter((r) => typeof r.vmid === 'number').map((r) => [r.vmid, r]));
  const unsure: Entry[] = [];
  for (const vmid of probeSequence(uid, range)) {
    const entry = byVmid.get(vmid);
    if (!entry) return { kind: 'absent', unsure };
    if (entry.type !== 'qemu' || typeof entry.node !== 'string') continue;
    const busy = busyReason(entry);
    if (busy !== undefined) return { kind: 'busy', entry, why: busy };
    const located = { ...entry, node: entry.node, vmid };
    if (entry.name === name) return { kind: 'named', entry: located };
    if (entry.template !== 1) unsure.push(located);
  }
  return { kind: 'absent', unsure };
}

/**
 * `VM <vmid>` as a clone's temporary config samples it (SPEC 28, audit
 * 3.3): that config has no disk, so vmstatus gives it `maxdisk` 0. A
 * nameless VM with a boot disk shows `VM <vmid>` at every cycle for as
 * long as it lives: a foreign VM, never one of our clones (their configs
 * are written with the name), so it is not worth a config read.
 */
export function isTemporaryConfigSample(entry: ClusterResource): boolean {
  return isPlaceholderName(entry) && !(typeof entry.maxdisk === 'number' && entry.maxdisk > 0);
}

/**
 * An entry that may carry one of the names: it does, or it has no name
 * yet, or a clone's temporary-config sample `VM <vmid>`, in our VMID
 * range. A clone that has just ended stays nameless (SPEC 23), or
 * `VM <vmid>` (SPEC 28), in /cluster/resources until pvestatd's next
 * cycle; its config has the name, so the caller reads it. A `VM <vmid>`
 * with a disk is a nameless VM pvestatd has seen whole, read only where
 * the registry knows the VMID (walkChain's unsure, knownButRenamed) or by
 * our tag, so nameless foreign VMs in the range cost no call (SPEC 26).
 */
export function maybeNamed(entry: ClusterResource, names: ReadonlySet<string>, range: VmidRange): boolean {
  if (entry.name !== undefined && !isTemporaryConfigSample(entry)) return names.has(entry.name);
  return inRange(entry, range);
}

function inRange(entry: ClusterResource, range: VmidRange): boolean {
  return typeof entry.vmid === 'number' && entry.vmid >= range.min && entry.vmid <= range.max;
}

/**
 * The entry at the VMID the registry last saw the name's VM at (its
 * lastKnown), when the listing shows it under another name: the sample
 * may be stale (SPEC 28), so the caller reads its config. Undefined when
 * there is no such entry, or it already shows the name.
 */
export function knownButRenamed(resources: ClusterResource[], name: string, knownVmid: number | undefined): Entry | undefined {
  if (knownVmid === undefined) return undefined;
  const entry = qemuEntries(resources).find((r) => r.vmid === knownVmid);
  return entry !== undefined && entry.name !== name && entry.template !== 1 ? entry : undefined;
}
