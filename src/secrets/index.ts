// Secrets live in files named by config and are read through here, so
// every value read is known to the redactor and never reaches a log, an
// error, a job or an HTTP answer (SPEC 7, 9, 18, 22).
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';

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

export class SecretFileError extends Error {
  override readonly name = 'SecretFileError';
  constructor(
    readonly path: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function describeReadError(path: string, err: unknown): SecretFileError {
  const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
  return new SecretFileError(path, code, `cannot read secret file ${path}: ${code}`);
}

/** The trimmed value of a secret file, each line registered for redaction. */
function acceptSecret(path: string, text: string): string {
  const value = text.trim();
  if (value === '') throw new SecretFileError(path, 'EEMPTY', `secret file ${path} is empty`);
  registerSecret(value);
  for (const line of value.split('\n')) registerSecret(line);
  return value;
}

/** Reads a secret file (trimmed) and registers its value for redaction. */
export async function readSecretFile(path: string): Promise<string> {
  try {
    return acceptSecret(path, await readFile(path, 'utf8'));
  } catch (err) {
    throw err instanceof SecretFileError ? err : describeReadError(path, err);
  }
}

export function readSecretFileSync(path: string): string {
  try {
    return acceptSecret(path, readFileSync(path, 'utf8'));
  } catch (err) {
    throw err instanceof SecretFileError ? err : describeReadError(path, err);
  }
}
