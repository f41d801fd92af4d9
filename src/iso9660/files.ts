// The files an image holds, and what the writer can and cannot take.
import { JOLIET_MAX_NAME } from './names.js';

export interface IsoFile {
  /** The exact name, e.g. `meta-data`. */
  name: string;
  data: Uint8Array;
}

/**
 * A file's record holds its level-1 identifier (14 bytes at most), PX, TF
 * and NM with the whole name, within 255 bytes (ECMA-119 9.1.1): at most
 * 139 bytes of name, so 128 leaves a margin and is easy to state.
 */
export const MAX_NAME_BYTES = 128;

export function checkFiles(files: readonly IsoFile[], joliet: boolean): void {
  if (files.length === 0) throw new Error('an ISO image needs at least one file');
  const seen = new Set<string>();
  for (const { name } of files) {
    if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\u0000')) {
      throw new Error(`invalid file name "${name}"`);
    }
    if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) throw new Error(`file name "${name}" is longer than ${MAX_NAME_BYTES} bytes`);
    // UCS-2 has no surrogate pairs: every character must be one UTF-16 unit.
    if (joliet && (name.length > JOLIET_MAX_NAME || [...name].length !== name.length)) {
      throw new Error(`file name "${name}" does not fit Joliet (at most ${JOLIET_MAX_NAME} UCS-2 characters)`);
    }
    if (seen.has(name)) throw new Error(`duplicate file name "${name}"`);
    seen.add(name);
  }
}
