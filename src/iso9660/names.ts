// File identifiers for the two trees: ISO 9660 level 1 for the primary
// tree (ECMA-119 7.5, 8.3 names of d-characters with ";1") and UCS-2
// big-endian for Joliet. Rock Ridge NM carries the real name beside them.

const D_CHARACTERS = /[^A-Z0-9_]/g;

function dChars(text: string, max: number): string {
  return text.toUpperCase().replace(D_CHARACTERS, '_').slice(0, max);
}

/**
 * Level-1 identifiers (ECMA-119 7.5.1: name of at most 8, extension of at
 * most 3 d-characters, separator '.', version ";1") for a set of names,
 * made unique by replacing the end of the name part with a counter.
 */
export function level1Identifiers(names: readonly string[]): Map<string, string> {
  const taken = new Set<string>();
  const result = new Map<string, string>();
  for (const name of names) {
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const extension = dot > 0 ? dChars(name.slice(dot + 1), 3) : '';
    let base = dChars(stem, 8);
    for (let counter = 1; taken.has(`${base}.${extension}`); counter += 1) {
      const suffix = String(counter);
      base = dChars(stem, 8 - suffix.length) + suffix;
    }
    taken.add(`${base}.${extension}`);
    result.set(name, `${base}.${extension};1`);
  }
  return result;
}

/** Joliet: UCS-2 big-endian, no version suffix, at most 64 characters. */
export const JOLIET_MAX_NAME = 64;

export function ucs2be(text: string): Buffer {
  const out = Buffer.alloc(text.length * 2);
  for (let i = 0; i < text.length; i += 1) out.writeUInt16BE(text.charCodeAt(i), i * 2);
  return out;
}
