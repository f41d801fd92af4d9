// Tests run against the real Redis, each under a prefix of its own that
// is removed afterwards (STYLE: a fresh queue per test, removed after).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import type { Config } from '../../src/config/index.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniquePrefix(what: string): string {
  return `pvep-test-${what}-${randomBytes(4).toString('hex')}`;
}

/** A connection that notes the name of every command it sends (counting round trips). */
export async function countingRedis(): Promise<{ redis: Redis; sent: string[] }> {
  const redis = newRedis();
  await redis.ping();
  const sent: string[] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    sent.push(command.name);
    return send(command, stream);
  };
  return { redis, sent };
}

export async function scanKeys(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found;
}

export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  const found = await scanKeys(redis, prefix);
  for (let i = 0; i < found.length; i += 500) await redis.del(...found.slice(i, i + 500));
}

/** Small budgets so crashes, retries and lock waits play out in a test's time. */
export function testConfig(prefix: string, overrides: Record<string, unknown> = {}): Config {
  const base = {
    redis: { url: REDIS_URL, prefix },
    budgets: { lockTtlMs: 1000 },
    jobs: { attempts: 3, backoffMs: 100, concurrency: 8, shutdownGraceSeconds: 5 },
  };
  return loadConfig({ env: {}, overrides: deepMerge(base, overrides) });
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const left = out[key];
    const bothObjects = typeof value === 'object' && value !== null && !Array.isArray(value) && typeof left === 'object' && left !== null;
    out[key] = bothObjects ? deepMerge(left as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return out;
}

export function newRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: null });
}

export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
