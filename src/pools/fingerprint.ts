// A pool's shape as one stable string (SPEC 30): what a member was made
// to, so a changed shape is told by comparing two strings. Readable on
// purpose: an operator reading `pool:<P>:members` sees what changed. The
// fields go in a fixed order and an absent one is `-` (no image, bridge
// or node name is `-`), so the same shape gives the same text in every
// process and release; `v1` names the form, should it ever change.
import type { PoolShape } from './types.js';

const ABSENT = '-';

/**
 * A pool that names its cluster (SPEC 32) has it at the end, so a pool
 * moved to another cluster drains the members made in the old one: a
 * claim never takes a VM of another cluster than its create's. A pool
 * naming none (the one-cluster form's) keeps the fingerprint it had.
 */
export function shapeFingerprint(shape: PoolShape & { cluster?: string }): string {
  const fields: [string, string | number | undefined][] = [
    ['image', shape.image],
    ['cores', shape.cores],
    ['memoryMiB', shape.memoryMiB],
    ['diskGiB', shape.diskGiB],
    ['bridge', shape.bridge],
    ['vlanTag', shape.vlanTag],
    ['node', shape.node],
  ];
  const cluster = shape.cluster === undefined ? '' : ` cluster=${shape.cluster}`;
  return `v1 ${fields.map(([key, value]) => `${key}=${value === undefined ? ABSENT : String(value)}`).join(' ')}${cluster}`;
}
