// Volume descriptors (ECMA-119 8): the primary (8.4), the Joliet
// supplementary (8.5, type 2 with escape sequence "%/E" = UCS-2 level 3)
// and the set terminator (8.3). Each is one 2048-byte sector.
import { bothEndian16, bothEndian32 } from './numbers.js';
import { unspecifiedVolumeDate, volumeDate } from './dates.js';
import { ucs2be } from './names.js';

export const SECTOR_SIZE = 2048;
/** 8.1: the standard identifier of every volume descriptor. */
const STANDARD_ID = 'CD001';
/** Joliet: escape sequence of UCS-2 level 3 in the SVD's escape sequences field (8.5.6). */
const JOLIET_ESCAPE = Buffer.from('%/E', 'ascii');

export type DescriptorKind = 'primary' | 'joliet';

export interface VolumeDescriptorFields {
  kind: DescriptorKind;
  volumeId: string;
  /** Total logical blocks of the image (8.4.8). */
  volumeSpaceSize: number;
  pathTableSize: number;
  lPathTableBlock: number;
  mPathTableBlock: number;
  /** The 34-byte root directory record (8.4.18). */
  rootRecord: Buffer;
  date: Date;
}

/** A text field: ASCII padded with spaces, or Joliet UCS-2 padded with UCS-2 spaces. */
function text(value: string, width: number, kind: DescriptorKind): Buffer {
  const out = Buffer.alloc(width);
  if (kind === 'primary') {
    out.fill(0x20);
    Buffer.from(value, 'ascii').copy(out, 0, 0, width);
  } else {
    // UCS-2 spaces (00 20); an odd width leaves a final 0x00.
    for (let i = 0; i + 1 < width; i += 2) out.writeUInt16BE(0x20, i);
    ucs2be(value).copy(out, 0, 0, width - (width % 2));
  }
  return out;
}

export function volumeDescriptor(fields: VolumeDescriptorFields): Buffer {
  const { kind } = fields;
  if (fields.rootRecord.length !== 34) throw new Error('the root record in a volume descriptor is 34 bytes');
  const out = Buffer.alloc(SECTOR_SIZE);
  out[0] = kind === 'primary' ? 1 : 2; // 8.4.1 / 8.5.1 type
  out.write(STANDARD_ID, 1, 'ascii'); // 8.4.2
  out[6] = 1; // 8.4.3 version
  out[7] = 0; // 8.4.4 unused / 8.5.3 volume flags
  text('', 32, kind).copy(out, 8); // 8.4.5 system identifier
  text(fields.volumeId, 32, kind).copy(out, 40); // 8.4.6 volume identifier
  bothEndian32(fields.volumeSpaceSize).copy(out, 80); // 8.4.8
  if (kind === 'joliet') JOLIET_ESCAPE.copy(out, 88); // 8.5.6 escape sequences
  bothEndian16(1).copy(out, 120); // 8.4.10 volume set size
  bothEndian16(1).copy(out, 124); // 8.4.11 volume sequence number
  bothEndian16(SECTOR_SIZE).copy(out, 128); // 8.4.12 logical block size
  bothEndian32(fields.pathTableSize).copy(out, 132); // 8.4.13 path table size
  out.writeUInt32LE(fields.lPathTableBlock, 140); // 8.4.14 type L path table
  out.writeUInt32LE(0, 144); // 8.4.15 optional type L path table: none
  out.writeUInt32BE(fields.mPathTableBlock, 148); // 8.4.16 type M path table
  out.writeUInt32BE(0, 152); // 8.4.17 optional type M path table: none
  fields.rootRecord.copy(out, 156); // 8.4.18
  text('', 128, kind).copy(out, 190); // 8.4.19 volume set identifier
  text('', 128, kind).copy(out, 318); // 8.4.20 publisher identifier
  text('', 128, kind).copy(out, 446); // 8.4.21 data preparer identifier
  text('', 128, kind).copy(out, 574); // 8.4.22 application identifier
  text('', 37, kind).copy(out, 702); // 8.4.23 copyright file identifier
  text('', 37, kind).copy(out, 739); // 8.4.24 abstract file identifier
  text('', 37, kind).copy(out, 776); // 8.4.25 bibliographic file identifier
  volumeDate(fields.date).copy(out, 813); // 8.4.26 creation
  volumeDate(fields.date).copy(out, 830); // 8.4.27 modification
  unspecifiedVolumeDate().copy(out, 847); // 8.4.28 expiration
  unspecifiedVolumeDate().copy(out, 864); // 8.4.29 effective
  out[881] = 1; // 8.4.31 file structure version
  return out;
}

/** 8.3: the volume descriptor set terminator (type 255). */
export function terminatorDescriptor(): Buffer {
  const out = Buffer.alloc(SECTOR_SIZE);
  out[0] = 255;
  out.write(STANDARD_ID, 1, 'ascii');
  out[6] = 1;
  return out;
}
