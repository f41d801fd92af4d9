// The characters in printed text that a terminal would act on (C0 but the
// newline, DEL, C1, the Unicode separators and direction controls), as
// `U+XXXX`, so a test can say none got through.
const RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x09],
  [0x0b, 0x1f],
  [0x7f, 0x9f],
  [0x200e, 0x200f],
  [0x2028, 0x2029],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
];

export function controlCharacters(text: string): string[] {
  return [...text]
    .map((char) => char.codePointAt(0) ?? 0)
    .filter((code) => RANGES.some(([low, high]) => code >= low && code <= high))
    .map((code) => `U+${code.toString(16).padStart(4, '0')}`);
}
