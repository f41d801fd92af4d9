// Directory records (ECMA-119 9.1), with an optional System Use field
// carrying SUSP/Rock Ridge entries (9.1.13, SUSP 4).
import { bothEndian16, bothEndian32 } from './numbers.js';
import { recordDate } from './dates.js';

/** 9.1.6 file flags: bit 1 says the record describes a directory. */
const FLAG_DIRECTORY = 0b0000_0010;

/** 9.1.11: the identifier of "." is the single byte 0x00, of ".." 0x01. */
export const SELF_IDENTIFIER = Buffer.from([0]);
export const PARENT_IDENTIFIER = Buffer.from([1]);

export interface DirectoryRecordFields {
  /** Logical block of the extent (9.1.3). */
  extent: number;
  /** Exact byte count of the extent (9.1.4). */
  dataLength: number;
  date: Date;
  directory: boolean;
  identifier: Buffer;
  systemUse?: Buffer;
}

/** The length of the record these fields give, without building it. */
function directoryRecordLength(identifierLength: number, systemUseLength: number): number {
  // 9.1.12: a padding byte follows an identifier of even length, so the
  // System Use field starts on an even offset; the record itself is kept even.
  const base = 33 + identifierLength + (identifierLength % 2 === 0 ? 1 : 0);
  const length = base + systemUseLength;
  return length + (length % 2);
}

export function directoryRecord(fields: DirectoryRecordFields): Buffer {
  const systemUse = fields.systemUse ?? Buffer.alloc(0);
  const length = directoryRecordLength(fields.identifier.length, systemUse.length);
  if (length > 255) throw new Error(`directory record too long (${length} bytes)`);
  const out = Buffer.alloc(length);
  out[0] = length; // 9.1.1
  out[1] = 0; // 9.1.2 extended attribute record length
  bothEndian32(fields.extent).copy(out, 2); // 9.1.3
  bothEndian32(fields.dataLength).copy(out, 10); // 9.1.4
  recordDate(fields.date).copy(out, 18); // 9.1.5
  out[25] = fields.directory ? FLAG_DIRECTORY : 0; // 9.1.6
  out[26] = 0; // 9.1.7 file unit size (not interleaved)
  out[27] = 0; // 9.1.8 interleave gap
  bothEndian16(1).copy(out, 28); // 9.1.9 volume sequence number
  out[32] = fields.identifier.length; // 9.1.10
  fields.identifier.copy(out, 33); // 9.1.11
  const systemUseStart = 33 + fields.identifier.length + (fields.identifier.length % 2 === 0 ? 1 : 0);
  systemUse.copy(out, systemUseStart); // 9.1.13
  return out;
}
