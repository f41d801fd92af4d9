// The redactor: every secret value read (read.ts registers each) and
// every secret shape is hidden from log lines, errors, job results and
// HTTP answers before they leave (SPEC 7, 9, 18, 22).

export const REDACTED = '[REDACTED]';

const knownSecrets = new Set<string>();

// Shapes that are secret whatever their value: a PVE token header or
// token string, bearer and basic credentials, a user:password in a URL.
// Each has a cheap test for text it cannot match: redaction runs on every
// log line and job result, and the token shape's regex is slow on long text.
const SECRET_SHAPES: { mayMatch: (text: string) => boolean; shape: RegExp; replacement: string }[] = [
  { mayMatch: (t) => t.includes('PVEAPIToken='), shape: /PVEAPIToken=[^\s"',;]+/g, replacement: `PVEAPIToken=${REDACTED}` },
  { mayMatch: (t) => t.includes('!') && t.includes('@'), shape: /([A-Za-z0-9._-]+@[A-Za-z0-9._-]+![A-Za-z0-9._-]+)=[^\s"',;]+/g, replacement: `$1=${REDACTED}` },
  { mayMatch: (t) => /bearer|basic/i.test(t), shape: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, replacement: `$1 ${REDACTED}` },
  { mayMatch: (t) => t.includes('://'), shape: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"']*:)[^\s@/"']+@/gi, replacement: `$1${REDACTED}@` },
];

/** Makes every later redaction hide this value. Values shorter than 6 characters are not registered (they would shred ordinary text). */
export function registerSecret(value: string): void {
  const trimmed = value.trim();
  if (trimmed.length >= 6) knownSecrets.add(trimmed);
  // The secret part of a PVE token (after "=") is a secret on its own.
  const eq = trimmed.indexOf('=');
  if (trimmed.includes('!') && eq > 0 && trimmed.length - eq - 1 >= 6) knownSecrets.add(trimmed.slice(eq + 1));
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const { mayMatch, shape, replacement } of SECRET_SHAPES) if (mayMatch(out)) out = out.replace(shape, replacement);
  for (const secret of knownSecrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}
