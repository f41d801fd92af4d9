// Which uploaded ISOs keep their bytes (SPEC 29): a seed is tens of KiB,
// and the simulated guest boots from it. Bigger files, and any once the
// total is reached, are kept as metadata only (name, size, sha256), as
// before; their guest boots as if it had no seed.
import type { SimState } from './state.js';

/** The largest ISO whose bytes are kept. */
export const KEPT_ISO_MAX_BYTES = 1024 * 1024;
/** All kept ISO bytes together, over every storage (a shared one counted once). */
export const KEPT_ISOS_TOTAL_BYTES = 128 * 1024 * 1024;

function keptTotal(state: SimState): number {
  const storages = new Set([...state.nodes.values()].flatMap((node) => [...node.storages.values()]));
  let total = 0;
  for (const storage of storages) for (const volume of storage.volumes.values()) total += volume.bytes?.length ?? 0;
  return total;
}

/** The bytes to keep for an upload of `volid` (replacing what that volume held), or undefined past a bound. */
export function bytesToKeep(state: SimState, bytes: Buffer | undefined, replaced: Buffer | undefined): Buffer | undefined {
  if (bytes === undefined || bytes.length > KEPT_ISO_MAX_BYTES) return undefined;
  return keptTotal(state) - (replaced?.length ?? 0) + bytes.length <= KEPT_ISOS_TOTAL_BYTES ? bytes : undefined;
}
