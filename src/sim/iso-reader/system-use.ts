// The System Use field of a directory record (ECMA-119 9.1.13) as SUSP
// 1.12 lays it out: entries of signature, length and version, a CE entry
// continuing them in another block. Only what the simulated guest needs:
// whether Rock Ridge is in use (an ER entry on the root, as Linux's isofs
// decides) and a file's NM name.

export interface SuspEntry {
  signature: string;
  /** The entry's bytes after its 4-byte head. */
  body: Buffer;
}

/** A cycle of CE entries, or a corrupt image, must not read forever. */
const MAX_CONTINUATIONS = 16;

/** The entries of one System Use field; `read(block, offset, length)` gives a continuation area. */
export function suspEntries(field: Buffer, read: (block: number, offset: number, length: number) => Buffer): SuspEntry[] {
  const out: SuspEntry[] = [];
  let area = field;
  for (let hops = 0; hops <= MAX_CONTINUATIONS; hops += 1) {
    let next: Buffer | undefined;
    for (let at = 0; at + 4 <= area.length; ) {
      const length = area[at + 2] ?? 0;
      if (length < 4 || at + length > area.length) break;
      const signature = area.toString('latin1', at, at + 2);
      const body = area.subarray(at + 4, at + length);
      if (signature === 'ST') break; // SUSP 5.4: the end of the entries
      if (signature === 'CE' && body.length >= 24) next = read(body.readUInt32LE(0), body.readUInt32LE(8), body.readUInt32LE(16));
      else out.push({ signature, body });
      at += length;
    }
    if (next === undefined) return out;
    area = next;
  }
  return out;
}

/** SUSP 5.3: the SP entry of the root's "." record; its LEN_SKP says where every other record's entries start. */
export function suspSkip(entries: readonly SuspEntry[]): number | undefined {
  const sp = entries.find((e) => e.signature === 'SP');
  if (sp === undefined || sp.body[0] !== 0xbe || sp.body[1] !== 0xef) return undefined;
  return sp.body[2] ?? 0;
}

/** RRIP 4.1.4: the NM entries' name, joined over CONTINUE flags; undefined without one (or for "." and ".."). */
export function rockRidgeName(entries: readonly SuspEntry[]): string | undefined {
  const parts: Buffer[] = [];
  for (const { signature, body } of entries) {
    if (signature !== 'NM' || body.length < 1) continue;
    const flags = body[0] ?? 0;
    if ((flags & 0b110) !== 0) return undefined; // CURRENT or PARENT
    parts.push(body.subarray(1));
    if ((flags & 1) === 0) break;
  }
  return parts.length === 0 ? undefined : Buffer.concat(parts).toString('utf8');
}
