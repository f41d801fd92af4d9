// Every secret file the config names, read at the start of every web and
// worker process whether or not that process uses it, so the redactor
// (redact.ts) knows every secret of the deployment in every process: a
// worker never uses the API tokens, yet a caller may paste one into a
// job's userData and a failure may echo it into the worker's log and the
// job's failure reason. A file that cannot be read is passed over: the
// process that needs it says so at its own start.
import type { Config } from '../config/types.js';
import { registerSecret } from './redact.js';
import { readSecretFile } from './read.js';

/** The secret files of the config, "" (unset) left out. */
export function secretFilePaths(config: Config): string[] {
  return [
    config.proxmox.tokenFile,
    config.redis.passwordFile,
    config.http.apiTokensFile,
    config.http.boardUsersFile,
    config.http.fingerprintKeyFile,
    config.webhooks.secretFile,
  ].filter((path) => path !== '');
}

/**
 * Reads each secret file the config names, registering every line (and,
 * for `user:password` lines, the password alone) for redaction. Resolves
 * with the files that were read.
 */
export async function learnSecretFiles(config: Config): Promise<string[]> {
  const read: string[] = [];
  for (const path of secretFilePaths(config)) {
    const text = await readSecretFile(path).catch(() => undefined);
    if (text === undefined) continue;
    read.push(path);
    if (path !== config.http.boardUsersFile) continue;
    for (const line of text.split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) registerSecret(line.slice(colon + 1));
    }
  }
  return read;
}
