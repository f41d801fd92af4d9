// A pool's shape as one stable string (SPEC 30): what a member was made
// to, so a changed shape is told by comparing two strings. Readable on
// purpose: an operator reading `pool:<P>:members` sees what changed. The
// fields go in a fixed order and an absent one is `-` (no image, bridge
// or node name is `-`), so the same shape gives the same text in every
// process and release; `v1` names the form, should it ever change.
import type { PoolShape } from './types.js';

const ABSENT = '-';

export function shapeFingerprint(shape: PoolShape): string {
  const fields: [string, string | number | undefined][] = [
    ['image', shape.image],
    ['cores', shape.cores],
    ['memoryMiB', shape.memoryMiB],
    ['diskGiB', shape.diskGiB],
    ['bridge', shape.bridge],
    ['vlanTag', shape.vlanTag],
    ['node', shape.node],
  ];
  return `v1 ${fields.map(([key, value]) => `${key}=${value === undefined ? ABSENT : String(value)}`).join(' ')}`;
}
