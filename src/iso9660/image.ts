// The layout of a flat image: a root directory holding a few small files.
//   0-15 system area (zero) | 16 primary VD | [Joliet VD] | terminator |
//   L and M path tables of each tree | primary root | Rock Ridge ER
//   continuation | [Joliet root] | each file on its own sectors.
// Everything before the file data is a few sectors built in memory; the
// file contents are streamed from the caller's buffers on every open().
import { Readable } from 'node:stream';
import { directoryRecord, SELF_IDENTIFIER } from './directory-record.js';
import { rootPathTable } from './path-table.js';
import { JOLIET_MAX_NAME, level1Identifiers, ucs2be } from './names.js';
import { packRecords, sectorsFor } from './sectors.js';
import { erEntry } from './susp.js';
import { jolietRootRecords, primaryRootRecords, type PlacedFile } from './trees.js';
import { SECTOR_SIZE, terminatorDescriptor, volumeDescriptor, type DescriptorKind } from './volume-descriptor.js';

export interface IsoFile {
  /** The exact name, e.g. `meta-data`. */
  name: string;
  data: Uint8Array;
}

export interface IsoImageOptions {
  /** The volume identifier, e.g. `cidata` (8.4.6). */
  volumeId: string;
  /** Add a Joliet tree (UCS-2 names). */
  joliet: boolean;
  /** Every timestamp in the image; fixed by default so the same input gives the same bytes. */
  date?: Date;
}

export interface IsoImage {
  /** Exact byte count of the image. */
  size: number;
  /** A fresh stream of the whole image; every call gives the same bytes. */
  open(): Readable;
}

/** The timestamp written when none is given. */
export const DEFAULT_DATE = new Date(Date.UTC(2000, 0, 1, 0, 0, 0));
/** Sectors 0-15 are the system area (ECMA-119 6.2.1). */
const SYSTEM_AREA_SECTORS = 16;
/**
 * libarchive recognises an image only when it can read 24 sectors ahead (its
 * bid reads the system area and 8 descriptor sectors; it also wants more
 * than 20 in the volume space size), so a smaller image is padded with zeros.
 */
const MIN_SECTORS = 24;
/** Root-only path table: one 10-byte entry (ECMA-119 9.4). */
const PATH_TABLE_SIZE = 10;
/**
 * A file's record holds its level-1 identifier (14 bytes at most), PX, TF
 * and NM with the whole name, within 255 bytes (ECMA-119 9.1.1): at most
 * 139 bytes of name, so 128 leaves a margin and is easy to state.
 */
export const MAX_NAME_BYTES = 128;

function checkFiles(files: readonly IsoFile[], joliet: boolean): void {
  if (files.length === 0) throw new Error('an ISO image needs at least one file');
  const seen = new Set<string>();
  for (const { name } of files) {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\u0000')) throw new Error(`invalid file name "${name}"`);
    if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) throw new Error(`file name "${name}" is longer than ${MAX_NAME_BYTES} bytes`);
    // UCS-2 has no surrogate pairs: every character must be one UTF-16 unit.
    if (joliet && (name.length > JOLIET_MAX_NAME || [...name].length !== name.length)) {
      throw new Error(`file name "${name}" does not fit Joliet (at most ${JOLIET_MAX_NAME} UCS-2 characters)`);
    }
    if (seen.has(name)) throw new Error(`duplicate file name "${name}"`);
    seen.add(name);
  }
}

function root34(extent: number, dataLength: number, date: Date): Buffer {
  return directoryRecord({ extent, dataLength, date, directory: true, identifier: SELF_IDENTIFIER });
}

function byBytes(a: Buffer, b: Buffer): number {
  return Buffer.compare(a, b);
}

export function buildIsoImage(files: readonly IsoFile[], options: IsoImageOptions): IsoImage {
  checkFiles(files, options.joliet);
  const date = options.date ?? DEFAULT_DATE;
  const level1 = level1Identifiers(files.map((f) => f.name));
  const primaryOrder = [...files].sort((a, b) =>
    byBytes(Buffer.from(level1.get(a.name) ?? '', 'ascii'), Buffer.from(level1.get(b.name) ?? '', 'ascii')),
  );

  // Sector numbers, in layout order.
  let next = SYSTEM_AREA_SECTORS;
  const primaryVd = next++;
  const jolietVd = options.joliet ? next++ : undefined;
  const terminator = next++;
  const primaryL = next++;
  const primaryM = next++;
  const jolietL = options.joliet ? next++ : 0;
  const jolietM = options.joliet ? next++ : 0;

  // Record lengths do not depend on locations: measure with zeros first.
  const er = erEntry();
  const continuation = { block: 0, length: er.length };
  const unplaced: PlacedFile[] = primaryOrder.map((f) => ({ name: f.name, level1: level1.get(f.name) ?? '', extent: 0, size: f.data.length }));
  const zeroPlace = { extent: 0, dataLength: 0 };
  const primaryRootSectors = sectorsFor(packRecords(primaryRootRecords(zeroPlace, unplaced, continuation, date)).length);
  const jolietOrder = [...unplaced].sort((a, b) => byBytes(ucs2be(a.name), ucs2be(b.name)));
  const jolietRootSectors = options.joliet ? sectorsFor(packRecords(jolietRootRecords(zeroPlace, jolietOrder, date)).length) : 0;

  const primaryRoot = { extent: next, dataLength: primaryRootSectors * SECTOR_SIZE };
  next += primaryRootSectors;
  continuation.block = next++;
  const jolietRoot = { extent: next, dataLength: jolietRootSectors * SECTOR_SIZE };
  next += jolietRootSectors;
  const firstFileSector = next;
  for (const file of unplaced) {
    file.extent = next;
    // An empty file still gets a sector of its own, so no extent points past the volume.
    next += Math.max(1, sectorsFor(file.size));
  }
  const totalSectors = Math.max(next, MIN_SECTORS);

  const descriptor = (kind: DescriptorKind, root: typeof primaryRoot, l: number, m: number): Buffer =>
    volumeDescriptor({
      kind,
      volumeId: options.volumeId,
      volumeSpaceSize: totalSectors,
      pathTableSize: PATH_TABLE_SIZE,
      lPathTableBlock: l,
      mPathTableBlock: m,
      rootRecord: root34(root.extent, root.dataLength, date),
      date,
    });
  const sector = (content: Buffer): Buffer => packRecords([content]);

  const header: Buffer[] = [Buffer.alloc(SYSTEM_AREA_SECTORS * SECTOR_SIZE), descriptor('primary', primaryRoot, primaryL, primaryM)];
  if (jolietVd !== undefined) header.push(descriptor('joliet', jolietRoot, jolietL, jolietM));
  header.push(terminatorDescriptor());
  header.push(sector(rootPathTable(primaryRoot.extent, 'L')), sector(rootPathTable(primaryRoot.extent, 'M')));
  if (options.joliet) header.push(sector(rootPathTable(jolietRoot.extent, 'L')), sector(rootPathTable(jolietRoot.extent, 'M')));
  header.push(packRecords(primaryRootRecords(primaryRoot, unplaced, continuation, date)));
  header.push(sector(er));
  if (options.joliet) {
    const jolietPlaced = [...unplaced].sort((a, b) => byBytes(ucs2be(a.name), ucs2be(b.name)));
    header.push(packRecords(jolietRootRecords(jolietRoot, jolietPlaced, date)));
  }
  const headerBytes = Buffer.concat(header);
  if (headerBytes.length !== firstFileSector * SECTOR_SIZE || terminator !== (jolietVd ?? primaryVd) + 1) {
    throw new Error('ISO 9660 layout is inconsistent');
  }

  // Copied, so a caller changing its buffers later cannot change the image.
  const contents = primaryOrder.map((f) => Buffer.from(f.data));
  const trailingSectors = totalSectors - next;
  function* chunks(): Generator<Buffer> {
    yield headerBytes;
    for (const data of contents) {
      if (data.length > 0) yield data;
      const padding = Math.max(1, sectorsFor(data.length)) * SECTOR_SIZE - data.length;
      if (padding > 0) yield Buffer.alloc(padding);
    }
    if (trailingSectors > 0) yield Buffer.alloc(trailingSectors * SECTOR_SIZE);
  }
  return {
    size: totalSectors * SECTOR_SIZE,
    open: () => Readable.from(chunks(), { objectMode: false }),
  };
}
