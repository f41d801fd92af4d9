// The API token kept between requests: the file is checked (one stat) at
// most once per interval and read again only when its mtime or size has
// changed, so a rotated token is used within the interval without a
// restart (SPEC 18) and a busy worker does not read the file per call.
// A failed read is never kept: the next call tries the file again.
import { stat } from 'node:fs/promises';
import { readToken } from './token.js';

export const TOKEN_CHECK_INTERVAL_MS = 1_000;

export interface TokenSource {
  /** The token of the file as last seen; throws like readToken when the file is missing or malformed. */
  token(): Promise<string>;
}

export interface TokenSourceOptions {
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
  checkEveryMs?: number;
  /** How the file is read (readToken); tests wrap it to count reads. */
  read?: (tokenFile: string) => Promise<string>;
}

interface Kept {
  token: string;
  mtimeMs: number;
  size: number;
  checkedAt: number;
}

export function createTokenSource(tokenFile: string, options: TokenSourceOptions = {}): TokenSource {
  const now = options.now ?? Date.now;
  const checkEveryMs = options.checkEveryMs ?? TOKEN_CHECK_INTERVAL_MS;
  const read = options.read ?? readToken;
  let kept: Kept | undefined;
  return {
    async token(): Promise<string> {
      const at = now();
      if (kept !== undefined && at - kept.checkedAt < checkEveryMs) return kept.token;
      // Stat before reading: a write landing between the two shows as a change at the next check.
      const seen = await stat(tokenFile).catch(() => undefined);
      if (seen !== undefined && kept !== undefined && seen.mtimeMs === kept.mtimeMs && seen.size === kept.size) {
        kept.checkedAt = at;
        return kept.token;
      }
      kept = undefined;
      const token = await read(tokenFile);
      if (seen !== undefined) kept = { token, mtimeMs: seen.mtimeMs, size: seen.size, checkedAt: at };
      return token;
    },
  };
}
