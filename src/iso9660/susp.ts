// System Use Sharing Protocol (SUSP 1.12) and Rock Ridge (RRIP 1.09,
// identified as RRIP_1991A) entries. Only the entries a flat image of
// regular files needs; no legacy RR entry (Linux ignores NM when an RR
// entry's flags lack the NM bit), and nothing a strict reader does not know.
import { bothEndian32 } from './numbers.js';
import { recordDate } from './dates.js';

/** SUSP 4.1: every entry starts with a signature, its length and version 1. */
function entry(signature: string, body: Buffer): Buffer {
  const length = 4 + body.length;
  if (length > 255) throw new Error(`SUSP ${signature} entry too long (${length} bytes)`);
  return Buffer.concat([Buffer.from(signature, 'ascii'), Buffer.from([length, 1]), body]);
}

/** SUSP 5.3: SP marks the root "." record as using SUSP; check bytes BE EF, skip 0. */
export function spEntry(): Buffer {
  return entry('SP', Buffer.from([0xbe, 0xef, 0]));
}

/** SUSP 5.1: CE points at a continuation area (block, offset, length, each both-endian). */
export function ceEntry(block: number, offset: number, length: number): Buffer {
  return entry('CE', Buffer.concat([bothEndian32(block), bothEndian32(offset), bothEndian32(length)]));
}

/** RRIP 1.09 (RRIP_1991A) as registered in its ER entry (RRIP 4.3). */
const RRIP_1991A = {
  id: 'RRIP_1991A',
  descriptor: 'THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS',
  source:
    'PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER IDENTIFIER IN PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION.',
  version: 1,
} as const;

/** SUSP 5.5: ER names the extension in use; Linux turns Rock Ridge on only after it. */
export function erEntry(ext: { id: string; descriptor: string; source: string; version: number } = RRIP_1991A): Buffer {
  const id = Buffer.from(ext.id, 'ascii');
  const descriptor = Buffer.from(ext.descriptor, 'ascii');
  const source = Buffer.from(ext.source, 'ascii');
  const head = Buffer.from([id.length, descriptor.length, source.length, ext.version]);
  return entry('ER', Buffer.concat([head, id, descriptor, source]));
}

/** RRIP 4.1.4: NM carries the exact POSIX name (flags 0: the whole name, no continuation). */
export function nmEntry(name: string): Buffer {
  return entry('NM', Buffer.concat([Buffer.from([0]), Buffer.from(name, 'utf8')]));
}

export interface PosixAttributes {
  mode: number;
  links: number;
  uid: number;
  gid: number;
}

/** RRIP 4.1.1 (1.09 form, 36 bytes): mode, links, uid, gid, each both-endian. */
export function pxEntry(attrs: PosixAttributes): Buffer {
  return entry(
    'PX',
    Buffer.concat([bothEndian32(attrs.mode), bothEndian32(attrs.links), bothEndian32(attrs.uid), bothEndian32(attrs.gid)]),
  );
}

/** RRIP 4.1.6 TF flags: modify, access and attributes change times, short (7-byte) form. */
const TF_MODIFY_ACCESS_ATTRIBUTES = 0b0000_1110;

/** RRIP 4.1.6: TF with the modify, access and attribute-change times, all `date`. */
export function tfEntry(date: Date): Buffer {
  const stamp = recordDate(date);
  return entry('TF', Buffer.concat([Buffer.from([TF_MODIFY_ACCESS_ATTRIBUTES]), stamp, stamp, stamp]));
}
