// Secrets an operator chooses (API tokens, Bull Board passwords, the
// webhook key) must hold at least 128 bits. A chosen secret's true
// entropy cannot be known from the text; this is an upper estimate, its
// length times the bits of the alphabet its kinds of character span,
// which refuses what is short or plain (`weaktoken`, `pass1234`) and
// passes any 16 random bytes in hex or base64.
export const MIN_SECRET_BITS = 128;

const ALPHABETS: { test: RegExp; size: number }[] = [
  { test: /[a-z]/, size: 26 },
  { test: /[A-Z]/, size: 26 },
  { test: /[0-9]/, size: 10 },
  // Punctuation, spaces and anything beyond ASCII.
  { test: /[^a-zA-Z0-9]/, size: 33 },
];

export function estimatedBits(secret: string): number {
  const alphabet = ALPHABETS.filter(({ test }) => test.test(secret)).reduce((sum, { size }) => sum + size, 0);
  return alphabet === 0 ? 0 : [...secret].length * Math.log2(alphabet);
}

/** What is wrong with a secret this weak, never quoting it; undefined when it is strong enough. */
export function weakSecretProblem(secret: string): string | undefined {
  const bits = estimatedBits(secret);
  if (bits >= MIN_SECRET_BITS) return undefined;
  return `holds at most about ${Math.floor(bits)} bits, fewer than the ${MIN_SECRET_BITS} a secret needs; make one with \`openssl rand -base64 32\``;
}
