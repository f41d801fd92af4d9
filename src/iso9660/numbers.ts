// Numeric fields of ECMA-119 section 7: single- and both-endian integers.
// libarchive checks that both halves of a both-endian field agree, so
// every both-endian number goes through these two functions.

/** 7.2.3: a 16-bit number written little-endian then big-endian (4 bytes). */
export function bothEndian16(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt16LE(value, 0);
  out.writeUInt16BE(value, 2);
  return out;
}

/** 7.3.3: a 32-bit number written little-endian then big-endian (8 bytes). */
export function bothEndian32(value: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeUInt32LE(value, 0);
  out.writeUInt32BE(value, 4);
  return out;
}
