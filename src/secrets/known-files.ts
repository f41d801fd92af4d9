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

/** The secret files of the config, "" (unset) left out; each cluster's token file too (SPEC 32), each file once. */
export function secretFilePaths(config: Config): string[] {
  const paths = [
    config.proxmox.tokenFile,
    config.redis.passwordFile,
    config.http.apiTokensFile,
    config.http.boardUsersFile,
    config.http.fingerprintKeyFile,
    config.webhooks.secretFile,
    ...(config.proxmox.clusters ?? []).map((cluster) => cluster.tokenFile),
  ];
  return [...new Set(paths)].filter((path) => path !== '');
}

/** The password in a URL's user part, "" when it has none. */
export function passwordOf(url: string): string {
  if (!URL.canParse(url)) return '';
  const { password } = new URL(url);
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}

/**
 * Reads each secret file the config names, registering every line (and,
 * for `user:password` lines, the password alone, for a tokens line the
 * token alone) for redaction, and the
 * passwords in redis.url and webhooks.url, secrets that need no file.
 * Resolves with the files that were read.
 */
export async function learnSecretFiles(config: Config): Promise<string[]> {
  for (const url of [config.redis.url, config.webhooks.url]) registerSecret(passwordOf(url));
  const read: string[] = [];
  for (const path of secretFilePaths(config)) {
    const text = await readSecretFile(path).catch(() => undefined);
    if (text === undefined) continue;
    read.push(path);
    // A tokens line may go on with its tenant's words (SPEC 34): the token is its first word.
    if (path === config.http.apiTokensFile) for (const line of text.split('\n')) registerSecret(line.trim().split(/[ \t]+/)[0] ?? '');
    if (path !== config.http.boardUsersFile) continue;
    for (const line of text.split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) registerSecret(line.slice(colon + 1));
    }
  }
  return read;
}
