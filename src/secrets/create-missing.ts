// Creates a missing secret file (API tokens, Bull Board users) with a
// random value, mode 0600, so the default run on the simulator needs no
// set-up. The value is never returned for logging: callers log the path.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A random secret: 32 bytes, base64url (43 characters, no padding). */
function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Contents of a new API tokens file: one random token. */
export function newApiTokensFile(): string {
  return `${randomSecret()}\n`;
}

/** Contents of a new key file (the answers' fingerprint key): one random key. */
export function newKeyFile(): string {
  return `${randomSecret()}\n`;
}

/** Contents of a new Bull Board users file: `admin:<random password>`. */
export function newBoardUsersFile(): string {
  return `admin:${randomSecret()}\n`;
}

/**
 * Writes `contents()` to `path` with mode 0600 unless the file exists.
 * Resolves true when it created the file. Two processes racing to create
 * it are safe: the exclusive flag lets only one write, the other sees it.
 */
export async function createSecretFileIfMissing(path: string, contents: () => string): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, contents(), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
