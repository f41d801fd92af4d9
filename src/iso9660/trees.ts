// The records of the root directory of each tree: the primary tree with
// level-1 names and Rock Ridge entries, and the optional Joliet tree.
import { directoryRecord, PARENT_IDENTIFIER, SELF_IDENTIFIER } from './directory-record.js';
import { ceEntry, nmEntry, pxEntry, spEntry, tfEntry } from './susp.js';
import { ucs2be } from './names.js';

/** POSIX modes given through RRIP PX: read-only files, a searchable root. */
const FILE_MODE = 0o100444;
const DIRECTORY_MODE = 0o040555;

export interface PlacedFile {
  /** The exact name readers should show (Rock Ridge NM, Joliet). */
  name: string;
  /** The level-1 identifier, e.g. `META_DAT.;1`. */
  level1: string;
  extent: number;
  size: number;
}

export interface DirectoryPlace {
  extent: number;
  dataLength: number;
}

export interface ContinuationPlace {
  block: number;
  length: number;
}

function selfAndParent(root: DirectoryPlace, date: Date, selfUse?: Buffer, parentUse?: Buffer): Buffer[] {
  const common = { extent: root.extent, dataLength: root.dataLength, date, directory: true };
  return [
    directoryRecord({ ...common, identifier: SELF_IDENTIFIER, ...(selfUse && { systemUse: selfUse }) }),
    // The root is its own parent (ECMA-119 6.8.2.2).
    directoryRecord({ ...common, identifier: PARENT_IDENTIFIER, ...(parentUse && { systemUse: parentUse }) }),
  ];
}

/**
 * The primary root: "." carries SP first (SUSP 5.3), then PX, TF and a CE
 * pointing at the ER entry; ".." and every file carry PX and TF, files NM.
 * Files must already be sorted by level-1 identifier (ECMA-119 9.3).
 */
export function primaryRootRecords(
  root: DirectoryPlace,
  files: readonly PlacedFile[],
  continuation: ContinuationPlace,
  date: Date,
): Buffer[] {
  const directoryPx = pxEntry({ mode: DIRECTORY_MODE, links: 2, uid: 0, gid: 0 });
  const selfUse = Buffer.concat([spEntry(), directoryPx, tfEntry(date), ceEntry(continuation.block, 0, continuation.length)]);
  const parentUse = Buffer.concat([directoryPx, tfEntry(date)]);
  const fileRecords = files.map((file) =>
    directoryRecord({
      extent: file.extent,
      dataLength: file.size,
      date,
      directory: false,
      identifier: Buffer.from(file.level1, 'ascii'),
      systemUse: Buffer.concat([nmEntry(file.name), pxEntry({ mode: FILE_MODE, links: 1, uid: 0, gid: 0 }), tfEntry(date)]),
    }),
  );
  return [...selfAndParent(root, date, selfUse, parentUse), ...fileRecords];
}

/** The Joliet root: plain records with UCS-2 names. Files sorted by their UCS-2 names. */
export function jolietRootRecords(root: DirectoryPlace, files: readonly PlacedFile[], date: Date): Buffer[] {
  const fileRecords = files.map((file) =>
    directoryRecord({ extent: file.extent, dataLength: file.size, date, directory: false, identifier: ucs2be(file.name) }),
  );
  return [...selfAndParent(root, date), ...fileRecords];
}
