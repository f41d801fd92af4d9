// Secrets live in files named by config and are read through here, so
// every value read is known to the redactor (redact.ts) and never
// reaches a log, an error, a job or an HTTP answer (SPEC 7, 9, 18, 22).
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { checkSecretFileMode } from './file-mode.js';
import { registerSecret } from './redact.js';

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
    checkSecretFileMode(path);
    return acceptSecret(path, await readFile(path, 'utf8'));
  } catch (err) {
    throw err instanceof SecretFileError ? err : describeReadError(path, err);
  }
}

export function readSecretFileSync(path: string): string {
  try {
    checkSecretFileMode(path);
    return acceptSecret(path, readFileSync(path, 'utf8'));
  } catch (err) {
    throw err instanceof SecretFileError ? err : describeReadError(path, err);
  }
}
