// `npm start` with no Redis (SPEC 24): on the default redis.url, when
// nothing answers there and redis-server is installed, start a private
// one on that address (AOF on, data under var/redis) that stops with the
// service; when it is not installed, say the one command that installs
// it. A redis.url the user set (environment or config file) is never
// replaced: then a Redis that does not answer is waited for, as always.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Logger } from '../log.js';
import { Redis } from 'ioredis';

const INSTALL_REDIS = 'sudo apt-get install redis-server';

export type RedisStart =
  /** Redis as configured: it answers, or the user chose it. */
  | { kind: 'configured' }
  | { kind: 'private'; close(): Promise<void> }
  /** Nothing answers and there is no redis-server to start: the line to print (exit 2). */
  | { kind: 'missing'; message: string };

export interface PrivateRedisOptions {
  url: string;
  /** redisUrlSetByUser(process.env) in the CLI. */
  setByUser: boolean;
  /** Where the AOF and the server's log go; var/redis by default. */
  dir?: string;
  /** PATH to look for redis-server on; process.env.PATH by default. */
  path?: string;
  logger: Logger;
}

/** redis.url of the default config (config/default.json and the schema). */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * True when REDIS_URL or the file named by PVE_PROVISIONER_CONFIG sets
 * redis.url, or the loaded redis.url (configuredUrl) is not the default
 * one (config/default.json edited): only the default is ever replaced.
 */
export function redisUrlSetByUser(env: NodeJS.ProcessEnv, configuredUrl?: string): boolean {
  if (configuredUrl !== undefined && configuredUrl !== DEFAULT_REDIS_URL) return true;
  if ((env.REDIS_URL ?? '') !== '') return true;
  const file = env.PVE_PROVISIONER_CONFIG;
  if (file === undefined || file === '' || !existsSync(file)) return false;
  try {
    const loaded = JSON.parse(readFileSync(file, 'utf8')) as { redis?: { url?: unknown } };
    return loaded.redis?.url !== undefined;
  } catch {
    // loadConfig has already refused a file it cannot read; count it as the user's choice.
    return true;
  }
}

async function answersPing(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

function findOnPath(program: string, path: string): string | undefined {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, program))
    .find((candidate) => existsSync(candidate));
}

async function waitForPing(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await answersPing(url))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with status ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`redis-server did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startPrivateRedisIfNeeded(options: PrivateRedisOptions): Promise<RedisStart> {
  if (options.setByUser || (await answersPing(options.url))) return { kind: 'configured' };
  const parsed = new URL(options.url);
  const host = parsed.hostname || '127.0.0.1';
  const port = parsed.port || '6379';
  const server = findOnPath('redis-server', options.path ?? process.env.PATH ?? '');
  if (server === undefined) {
    return { kind: 'missing', message: `nothing answers on redis.url ${options.url} and redis-server is not installed; install it with: ${INSTALL_REDIS} (or set REDIS_URL to a Redis of yours)` };
  }
  const dir = options.dir ?? join('var', 'redis');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const args = ['--bind', host, '--port', port, '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction', '--logfile', 'redis.log'];
  // Its own process group: a Ctrl-C at the terminal reaches us, and we stop it after the workers' last writes.
  const child = spawn(server, args, { stdio: 'ignore', detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPing(options.url, child, 10_000);
  } catch (err) {
    child.kill('SIGTERM');
    return { kind: 'missing', message: `nothing answers on redis.url ${options.url} and the private redis-server did not start (${(err as Error).message}); see ${join(dir, 'redis.log')}` };
  }
  options.logger.info(
    { redis: `${host}:${port}`, dir },
    `nothing answered on ${options.url}, so a private redis-server runs there (AOF on, data in ${dir}, log ${join(dir, 'redis.log')}); it stops with this process`,
  );
  return {
    kind: 'private',
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
