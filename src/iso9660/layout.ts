// Where everything goes, in sectors:
//   0-15 system area (zero) | 16 primary VD | [Joliet VD] | terminator |
//   L and M path tables of each tree | primary root | Rock Ridge ER
//   continuation | [Joliet root] | each file on its own sectors | padding.
import type { IsoFile } from './files.js';
import { level1Identifiers, ucs2be } from './names.js';
import { packRecords, sectorsFor } from './sectors.js';
import { erEntry } from './susp.js';
import { jolietRootRecords, primaryRootRecords, type ContinuationPlace, type DirectoryPlace, type PlacedFile } from './trees.js';
import { SECTOR_SIZE } from './volume-descriptor.js';

/** Sectors 0-15 are the system area (ECMA-119 6.2.1). */
export const SYSTEM_AREA_SECTORS = 16;
/**
 * libarchive recognises an image only when it can read 24 sectors ahead (its
 * bid reads the system area and 8 descriptor sectors; it also wants more
 * than 20 in the volume space size), so a smaller image is padded with zeros.
 */
const MIN_SECTORS = 24;

export interface TreePlace {
  root: DirectoryPlace;
  lPathTable: number;
  mPathTable: number;
  /** Files in this tree's order (ECMA-119 9.3: by identifier). */
  files: PlacedFile[];
}

export interface Layout {
  primary: TreePlace;
  joliet?: TreePlace;
  /** The sector holding the ER entry that the root's CE points at. */
  continuation: ContinuationPlace;
  /** Sector of the first file's extent; everything before is built in memory. */
  firstFileSector: number;
  totalSectors: number;
}

function byBytes(a: Buffer, b: Buffer): number {
  return Buffer.compare(a, b);
}

export function planLayout(files: readonly IsoFile[], joliet: boolean, date: Date): Layout {
  const level1 = level1Identifiers(files.map((f) => f.name));
  const placed: PlacedFile[] = files
    .map((f) => ({ name: f.name, level1: level1.get(f.name) ?? '', extent: 0, size: f.data.length }))
    .sort((a, b) => byBytes(Buffer.from(a.level1, 'ascii'), Buffer.from(b.level1, 'ascii')));
  const jolietOrder = [...placed].sort((a, b) => byBytes(ucs2be(a.name), ucs2be(b.name)));
  const continuation = { block: 0, length: erEntry().length };

  // Record lengths do not depend on locations: measure with zeros first.
  const unplaced = { extent: 0, dataLength: 0 };
  const primarySectors = sectorsFor(packRecords(primaryRootRecords(unplaced, placed, continuation, date)).length);
  const jolietSectors = joliet ? sectorsFor(packRecords(jolietRootRecords(unplaced, jolietOrder, date)).length) : 0;

  // After the system area: primary VD, Joliet VD, terminator.
  let next = SYSTEM_AREA_SECTORS + (joliet ? 3 : 2);
  const primaryTables = { lPathTable: next++, mPathTable: next++ };
  const jolietTables = joliet ? { lPathTable: next++, mPathTable: next++ } : undefined;
  const primaryRoot = { extent: next, dataLength: primarySectors * SECTOR_SIZE };
  next += primarySectors;
  continuation.block = next++;
  const jolietRoot = { extent: next, dataLength: jolietSectors * SECTOR_SIZE };
  next += jolietSectors;
  const firstFileSector = next;
  for (const file of placed) {
    file.extent = next;
    // An empty file still gets a sector of its own, so no extent points past the volume.
    next += Math.max(1, sectorsFor(file.size));
  }

  return {
    primary: { root: primaryRoot, ...primaryTables, files: placed },
    ...(jolietTables && { joliet: { root: jolietRoot, ...jolietTables, files: jolietOrder } }),
    continuation,
    firstFileSector,
    totalSectors: Math.max(next, MIN_SECTORS),
  };
}
