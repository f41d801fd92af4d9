// Path tables (ECMA-119 9.4). libarchive and pycdlib refuse an image
// without them, even when the only directory is the root. The L table has
// little-endian numbers (9.4.3, 9.4.4 with 7.3.1/7.2.1), the M table big-endian.

export type Endianness = 'L' | 'M';

/** 9.4: the root's entry: identifier 0x00, parent directory number 1. */
export function rootPathTable(rootExtent: number, endianness: Endianness): Buffer {
  const identifier = Buffer.from([0]);
  // 9.4.1-9.4.6: 8 fixed bytes, the identifier, a pad byte when its length is odd.
  const out = Buffer.alloc(8 + identifier.length + (identifier.length % 2));
  out[0] = identifier.length; // 9.4.1 length of directory identifier
  out[1] = 0; // 9.4.2 extended attribute record length
  if (endianness === 'L') {
    out.writeUInt32LE(rootExtent, 2); // 9.4.3 location of extent
    out.writeUInt16LE(1, 6); // 9.4.4 parent directory number
  } else {
    out.writeUInt32BE(rootExtent, 2);
    out.writeUInt16BE(1, 6);
  }
  identifier.copy(out, 8); // 9.4.5
  return out;
}
