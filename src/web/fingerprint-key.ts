// The web process's fingerprint key (http.fingerprintKeyFile, SPEC 24):
// read at start, and created with a random key when missing on the
// simulator defaults, as the credentials files are; anywhere else a
// missing file stops the start naming the key, since every web process
// and CLI host of one deployment must share the one key for their
// fingerprints to agree. Read whether or not auth is on: answers carry
// fingerprints either way.
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { createSecretFileIfMissing, newKeyFile } from '../secrets/create-missing.js';
import { SecretFileError, readSecretFile } from '../secrets/read.js';
import { CredentialsError } from './auth/credentials.js';

const KEY = 'http.fingerprintKeyFile';

/** Checks the key file can be read (creating it on the simulator defaults); throws CredentialsError naming the key. */
export async function ensureFingerprintKey(config: Config, logger: Logger): Promise<void> {
  const path = config.http.fingerprintKeyFile;
  if (config.proxmox.url === 'sim' && (await createSecretFileIfMissing(path, newKeyFile))) {
    logger.info({ file: path, key: KEY }, `created ${path} with a random fingerprint key (mode 0600)`);
  }
  try {
    await readSecretFile(path);
  } catch (err) {
    if (!(err instanceof SecretFileError)) throw err;
    const hint = err.code === 'ENOENT' ? `; create it (mode 0600) with one random line (e.g. \`openssl rand -base64 32\`), the same on every web and CLI host` : '';
    throw new CredentialsError(`${KEY}: ${err.message}${hint}`);
  }
}
