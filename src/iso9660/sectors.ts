// Packs directory records into whole sectors. ECMA-119 6.8.1.1: a
// directory record never crosses a logical sector; the rest of a sector
// is zero, and a reader moves on to the next sector when it meets a 0 length.
import { SECTOR_SIZE } from './volume-descriptor.js';

export function sectorsFor(bytes: number): number {
  return Math.ceil(bytes / SECTOR_SIZE);
}

/** The records laid out in sectors; the result is a whole number of sectors. */
export function packRecords(records: readonly Buffer[]): Buffer {
  const sectors: Buffer[] = [];
  let current = Buffer.alloc(SECTOR_SIZE);
  let used = 0;
  for (const record of records) {
    if (used + record.length > SECTOR_SIZE) {
      sectors.push(current);
      current = Buffer.alloc(SECTOR_SIZE);
      used = 0;
    }
    record.copy(current, used);
    used += record.length;
  }
  sectors.push(current);
  return Buffer.concat(sectors);
}
