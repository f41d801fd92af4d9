// The simulator's own ISO 9660 reader (SPEC 29): the files of an image's
// root directory by the names a Linux guest sees when it mounts the seed.
// Written apart from the writer in src/iso9660, so a fault there is not
// hidden by the same fault here. As Linux's isofs (fs/isofs/inode.c):
// Rock Ridge names when the root announces Rock Ridge (ER), else the
// Joliet tree's names when there is one, else the ECMA-119 names with
// their `;1` version and a trailing dot dropped, in lower case.
import { rockRidgeName, suspEntries, suspSkip, type SuspEntry } from './system-use.js';

export interface IsoContents {
  /** The primary volume descriptor's volume identifier, trailing spaces dropped (cloud-init looks for `cidata`). */
  volumeId: string;
  /** Each regular file of the root directory, by name. */
  files: Map<string, Buffer>;
}

export class IsoReadError extends Error {
  override readonly name = 'IsoReadError';
}

/** ECMA-119 6.1.2: a logical sector is 2048 bytes; descriptors start at sector 16 (6.2.1). */
const SECTOR = 2048;
const FIRST_DESCRIPTOR = 16;
/** A corrupt image without a terminator must not be read to its end. */
const MAX_DESCRIPTORS = 32;
const FLAG_DIRECTORY = 0x02;
const FLAG_ASSOCIATED = 0x04;
const FLAG_MULTI_EXTENT = 0x80;

interface Descriptors {
  volumeId: string;
  blockSize: number;
  primaryRoot: Buffer;
  jolietRoot?: Buffer;
}

interface DirEntry {
  identifier: Buffer;
  directory: boolean;
  data: Buffer;
  systemUse: Buffer;
}

function slice(image: Buffer, start: number, length: number, what: string): Buffer {
  if (start < 0 || length < 0 || start + length > image.length) throw new IsoReadError(`${what} lies beyond the end of the image (${image.length} bytes)`);
  return image.subarray(start, start + length);
}

/** 8.5.6: a supplementary descriptor is Joliet when its escape sequences name UCS-2 level 1, 2 or 3. */
function isJoliet(descriptor: Buffer): boolean {
  const escapes = descriptor.toString('latin1', 88, 120);
  return (descriptor[7] ?? 0) === 0 && /%\/[@CE]/.test(escapes);
}

function readDescriptors(image: Buffer): Descriptors {
  let primary: Buffer | undefined;
  let joliet: Buffer | undefined;
  for (let i = 0; i < MAX_DESCRIPTORS; i += 1) {
    const d = slice(image, (FIRST_DESCRIPTOR + i) * SECTOR, SECTOR, `volume descriptor ${i}`);
    if (d.toString('latin1', 1, 6) !== 'CD001') throw new IsoReadError(`sector ${FIRST_DESCRIPTOR + i} is not an ISO 9660 volume descriptor (no CD001)`);
    const type = d[0];
    if (type === 255) break;
    if (type === 1) primary ??= d;
    if (type === 2 && isJoliet(d)) joliet ??= d;
  }
  if (primary === undefined) throw new IsoReadError('the image has no primary volume descriptor');
  const blockSize = primary.readUInt16LE(128);
  if (![512, 1024, 2048].includes(blockSize)) throw new IsoReadError(`logical block size ${blockSize} is not 512, 1024 or 2048`);
  return {
    volumeId: primary.toString('latin1', 40, 72).replace(/[ \0]+$/, ''),
    blockSize,
    primaryRoot: primary.subarray(156, 190),
    ...(joliet !== undefined && { jolietRoot: joliet.subarray(156, 190) }),
  };
}

/** A directory record's extent (after its extended attribute record), its flags and identifier. */
function parseRecord(image: Buffer, blockSize: number, record: Buffer, skip: number): DirEntry {
  const flags = record[25] ?? 0;
  const idLength = record[32] ?? 0;
  const identifier = record.subarray(33, 33 + idLength);
  if ((flags & FLAG_MULTI_EXTENT) !== 0) throw new IsoReadError(`file ${identifier.toString('latin1')} spans several extents, which this reader does not join`);
  const extent = record.readUInt32LE(2) + (record[1] ?? 0);
  const data = slice(image, extent * blockSize, record.readUInt32LE(10), `the extent of ${identifier.toString('latin1')}`);
  const systemUse = record.subarray(33 + idLength + (idLength % 2 === 0 ? 1 : 0) + skip);
  return { identifier, directory: (flags & FLAG_DIRECTORY) !== 0, data, systemUse: flags & FLAG_ASSOCIATED ? Buffer.alloc(0) : systemUse };
}

/** 6.8.1.1: records never cross a logical sector; a zero length byte pads to the next one. */
function directoryRecords(dir: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < dir.length; ) {
    const length = dir[at] ?? 0;
    if (length === 0) {
      at = (Math.floor(at / SECTOR) + 1) * SECTOR;
      continue;
    }
    if (length < 34 || at + length > dir.length) throw new IsoReadError(`a directory record at byte ${at} of its directory is malformed (length ${length})`);
    out.push(dir.subarray(at, at + length));
    at += length;
  }
  return out;
}

function readDirectory(image: Buffer, blockSize: number, rootRecord: Buffer, skip = 0): DirEntry[] {
  const root = parseRecord(image, blockSize, rootRecord, 0);
  return directoryRecords(root.data).map((r) => parseRecord(image, blockSize, r, skip));
}

/** ECMA-119 names as Linux shows them without Rock Ridge or Joliet (map=normal). */
function plainName(identifier: Buffer): string {
  return identifier.toString('latin1').replace(/;\d*$/, '').replace(/\.$/, '').toLowerCase();
}

/** Joliet identifiers are UCS-2 big-endian. */
function jolietName(identifier: Buffer): string {
  const even = Buffer.from(identifier.subarray(0, identifier.length - (identifier.length % 2)));
  return even.swap16().toString('utf16le').replace(/;\d*$/, '').replace(/\.$/, '');
}

function fileMap(entries: readonly DirEntry[], nameOf: (e: DirEntry) => string | undefined): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  // The first two records are "." and "..".
  for (const entry of entries.slice(2)) {
    const name = entry.directory ? undefined : nameOf(entry);
    if (name !== undefined && name !== '' && !files.has(name)) files.set(name, entry.data);
  }
  return files;
}

function readContents(image: Buffer): IsoContents {
  const { volumeId, blockSize, primaryRoot, jolietRoot } = readDescriptors(image);
  const continuation = (block: number, offset: number, length: number): Buffer => slice(image, block * blockSize + offset, length, 'a SUSP continuation area');
  const entriesOf = (e: DirEntry): SuspEntry[] => suspEntries(e.systemUse, continuation);
  const primary = readDirectory(image, blockSize, primaryRoot);
  const self = primary[0];
  const rootEntries = self === undefined ? [] : entriesOf(self);
  const skip = suspSkip(rootEntries);
  // Linux turns Rock Ridge on only when the root's "." (with its continuation) has an ER entry.
  if (skip !== undefined && rootEntries.some((e) => e.signature === 'ER')) {
    const withSkip = readDirectory(image, blockSize, primaryRoot, skip);
    return { volumeId, files: fileMap(withSkip, (e) => rockRidgeName(entriesOf(e)) ?? plainName(e.identifier)) };
  }
  if (jolietRoot !== undefined) return { volumeId, files: fileMap(readDirectory(image, blockSize, jolietRoot), (e) => jolietName(e.identifier)) };
  return { volumeId, files: fileMap(primary, (e) => plainName(e.identifier)) };
}

/** The volume identifier and the root directory's files; IsoReadError says what is wrong with an image it cannot read. */
export function readIso(image: Buffer): IsoContents {
  try {
    return readContents(image);
  } catch (err) {
    if (err instanceof IsoReadError) throw err;
    // A field pointing outside its buffer (readUInt32LE's RangeError): the image is corrupt.
    throw new IsoReadError(`the image is corrupt: ${err instanceof Error ? err.message : String(err)}`);
  }
}
