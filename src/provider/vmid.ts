// Provider id and the uid-derived VMID (SPEC 11).
import { createHash } from 'node:crypto';

/** How far Create and Get walk forward past VMIDs taken by someone else. */
const MAX_VMID_PROBES = 32;

export function providerId(vmid: number, name: string): string {
  return `vms/${vmid}/${name}`;
}

export function parseProviderId(id: string): { vmid: number; name: string } | undefined {
  const m = /^vms\/(\d+)\/([a-z0-9-]+)$/.exec(id);
  if (!m?.[1] || !m[2]) return undefined;
  return { vmid: Number(m[1]), name: m[2] };
}

export interface VmidRange {
  min: number;
  max: number;
}

/** A stable hash of the uid into the range: the same uid always lands on the same VMID. */
export function vmidForUid(uid: string, range: VmidRange): number {
  const size = range.max - range.min + 1;
  const digest = createHash('sha256').update(uid, 'utf8').digest();
  return range.min + (digest.readUIntBE(0, 6) % size);
}

/** The VMIDs Create tries in order: the uid's own, then forward, wrapping inside the range. */
export function probeSequence(uid: string, range: VmidRange, probes = MAX_VMID_PROBES): number[] {
  const size = range.max - range.min + 1;
  const first = vmidForUid(uid, range);
  const out: number[] = [];
  for (let i = 0; i < Math.min(probes, size); i++) {
    out.push(range.min + ((first - range.min + i) % size));
  }
  return out;
}
