// The credentials of the web process (SPEC 6): bearer tokens for /v1 and
// Bull Board users, each read from the file config names. A missing file
// is created with a random value on the simulator defaults (the path is
// logged, never the value); anywhere else it stops the start with a
// message saying what to put where.
import type { Config } from '../../config/index.js';
import type { Logger } from '../../log.js';
import { registerSecret } from '../../secrets/redact.js';
import { weakSecretProblem } from '../../secrets/strength.js';
import { readSecretFile, SecretFileError } from '../../secrets/read.js';
import { parseTokenLines, TokenLinesError, type ApiToken } from '../../tenants/token-lines.js';
import { createSecretFileIfMissing, newApiTokensFile, newBoardUsersFile } from '../../secrets/create-missing.js';

export interface BoardUser {
  user: string;
  password: string;
}

export interface Credentials {
  /** Each bearer token with its tenant and scope (SPEC 34); a plain line's is the default tenant, admin. */
  apiTokens: ApiToken[];
  boardUsers: BoardUser[];
}

export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
}

function meaningfulLines(text: string): { line: string; number: number }[] {
  return text
    .split('\n')
    .map((raw, index) => ({ line: raw.trim(), number: index + 1 }))
    .filter(({ line }) => line !== '' && !line.startsWith('#'));
}

/**
 * One token per line, optionally followed by its tenant's words (SPEC 34,
 * src/tenants/token-lines.ts); blank lines and `#` comments are skipped.
 * Each token must hold 128 bits (strength.ts) and is registered for redaction.
 */
export function parseApiTokens(text: string, path: string): ApiToken[] {
  try {
    const tokens = parseTokenLines(text, path);
    for (const { token } of tokens) registerSecret(token);
    return tokens;
  } catch (err) {
    throw err instanceof TokenLinesError ? new CredentialsError(err.message) : err;
  }
}

/** `user:password` per line; the password may itself hold colons and must hold 128 bits (strength.ts). */
export function parseBoardUsers(text: string, path: string): BoardUser[] {
  const users = meaningfulLines(text).map(({ line, number }) => {
    const colon = line.indexOf(':');
    if (colon <= 0 || colon === line.length - 1) {
      // The line is never echoed: it may hold a password.
      throw new CredentialsError(`http.boardUsersFile ${path} line ${number} is not "user:password"`);
    }
    const password = line.slice(colon + 1);
    registerSecret(password);
    const weak = weakSecretProblem(password);
    if (weak !== undefined) throw new CredentialsError(`http.boardUsersFile ${path} line ${number}: the password ${weak}`);
    return { user: line.slice(0, colon), password };
  });
  if (users.length === 0) throw new CredentialsError(`http.boardUsersFile ${path} holds no user; put one "user:password" per line`);
  return users;
}

interface SecretFileSpec {
  key: string;
  path: string;
  form: string;
  create: () => string;
}

async function readOrCreate(spec: SecretFileSpec, mayCreate: boolean, logger: Logger): Promise<string> {
  try {
    return await readSecretFile(spec.path);
  } catch (err) {
    if (!(err instanceof SecretFileError) || err.code !== 'ENOENT') {
      throw new CredentialsError(`${spec.key}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (!mayCreate) {
    throw new CredentialsError(
      `${spec.key} names ${spec.path}, which does not exist. Create it (mode 0600) with ${spec.form}, ` +
        'or set http.authDisabled=true (HTTP_AUTH_DISABLED) to run without auth.',
    );
  }
  if (await createSecretFileIfMissing(spec.path, spec.create)) {
    logger.info({ file: spec.path, key: spec.key }, `created ${spec.path} with a random credential (mode 0600); read it from there`);
  }
  return readSecretFile(spec.path);
}

/**
 * Reads (or, on the simulator defaults, creates) both credentials files.
 * Resolves undefined when config turns auth off, after a warning.
 */
export async function loadCredentials(config: Config, logger: Logger): Promise<Credentials | undefined> {
  if (config.http.authDisabled) {
    logger.warn('http.authDisabled is true: the /v1 API and Bull Board answer anyone who can reach them');
    return undefined;
  }
  const mayCreate = config.proxmox.url === 'sim';
  const tokensFile: SecretFileSpec = {
    key: 'http.apiTokensFile',
    path: config.http.apiTokensFile,
    form: 'one bearer token per line (e.g. `openssl rand -base64 32`)',
    create: newApiTokensFile,
  };
  const usersFile: SecretFileSpec = {
    key: 'http.boardUsersFile',
    path: config.http.boardUsersFile,
    form: 'one "user:password" per line',
    create: newBoardUsersFile,
  };
  const apiTokens = parseApiTokens(await readOrCreate(tokensFile, mayCreate, logger), tokensFile.path);
  const boardUsers = parseBoardUsers(await readOrCreate(usersFile, mayCreate, logger), usersFile.path);
  return { apiTokens, boardUsers };
}
