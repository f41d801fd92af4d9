// A flat image of a few small files: the descriptors, path tables and
// directories are a few sectors built in memory; the file contents are
// streamed after them on every open(), so the size is known up front and
// a retried upload gets the same bytes again.
import { Readable } from 'node:stream';
import { directoryRecord, SELF_IDENTIFIER } from './directory-record.js';
import { checkFiles, type IsoFile } from './files.js';
import { planLayout, SYSTEM_AREA_SECTORS, type Layout, type TreePlace } from './layout.js';
import { rootPathTable } from './path-table.js';
import { packRecords, sectorsFor } from './sectors.js';
import { erEntry } from './susp.js';
import { jolietRootRecords, primaryRootRecords } from './trees.js';
import { SECTOR_SIZE, terminatorDescriptor, volumeDescriptor, type DescriptorKind } from './volume-descriptor.js';

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
/** Root-only path table: one 10-byte entry (ECMA-119 9.4). */
const PATH_TABLE_SIZE = 10;

/** Every sector before the first file's data. */
function headerSectors(layout: Layout, volumeId: string, date: Date): Buffer {
  const descriptor = (kind: DescriptorKind, tree: TreePlace): Buffer =>
    volumeDescriptor({
      kind,
      volumeId,
      volumeSpaceSize: layout.totalSectors,
      pathTableSize: PATH_TABLE_SIZE,
      lPathTableBlock: tree.lPathTable,
      mPathTableBlock: tree.mPathTable,
      rootRecord: directoryRecord({ ...tree.root, date, directory: true, identifier: SELF_IDENTIFIER }),
      date,
    });
  const sector = (content: Buffer): Buffer => packRecords([content]);
  const { primary, joliet } = layout;

  const parts = [Buffer.alloc(SYSTEM_AREA_SECTORS * SECTOR_SIZE), descriptor('primary', primary)];
  if (joliet) parts.push(descriptor('joliet', joliet));
  parts.push(terminatorDescriptor());
  for (const tree of joliet ? [primary, joliet] : [primary]) {
    parts.push(sector(rootPathTable(tree.root.extent, 'L')), sector(rootPathTable(tree.root.extent, 'M')));
  }
  parts.push(packRecords(primaryRootRecords(primary.root, primary.files, layout.continuation, date)));
  parts.push(sector(erEntry()));
  if (joliet) parts.push(packRecords(jolietRootRecords(joliet.root, joliet.files, date)));

  const header = Buffer.concat(parts);
  if (header.length !== layout.firstFileSector * SECTOR_SIZE) throw new Error('ISO 9660 layout is inconsistent');
  return header;
}

export function buildIsoImage(files: readonly IsoFile[], options: IsoImageOptions): IsoImage {
  checkFiles(files, options.joliet);
  const date = options.date ?? DEFAULT_DATE;
  const layout = planLayout(files, options.joliet, date);
  const header = headerSectors(layout, options.volumeId, date);

  // In extent order, copied so a caller changing its buffers later cannot change the image.
  const byName = new Map(files.map((f) => [f.name, f.data]));
  const contents = layout.primary.files.map((f) => Buffer.from(byName.get(f.name) ?? new Uint8Array()));
  const dataSectors = contents.reduce((sum, data) => sum + Math.max(1, sectorsFor(data.length)), 0);
  const trailingSectors = layout.totalSectors - layout.firstFileSector - dataSectors;

  function* chunks(): Generator<Buffer> {
    yield header;
    for (const data of contents) {
      if (data.length > 0) yield data;
      const padding = Math.max(1, sectorsFor(data.length)) * SECTOR_SIZE - data.length;
      if (padding > 0) yield Buffer.alloc(padding);
    }
    if (trailingSectors > 0) yield Buffer.alloc(trailingSectors * SECTOR_SIZE);
  }
  return {
    size: layout.totalSectors * SECTOR_SIZE,
    open: () => Readable.from(chunks(), { objectMode: false }),
  };
}
