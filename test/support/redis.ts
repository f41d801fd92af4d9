// Tests run against the real Redis, each under a prefix of its own that
// is removed afterwards (STYLE: a fresh queue per test, removed after).
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import type { Config } from '../../src/config/index.js';
import type { RedisClient } from '../../src/queue/connection.js';
import { hostPorts, keyPrefixOf } from '../../src/queue/redis-target.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `npm run test:cluster` (scripts/test-cluster.ts) points the suite at a Redis Cluster of its own (SPEC 25). */
export const REDIS_CLUSTER_NODES = (process.env.REDIS_CLUSTER_NODES ?? '')
  .split(',')
  .map((node) => node.trim())
  .filter((node) => node !== '');

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

/** Every key under the prefix (the `{prefix}` hash tag too); on a Cluster, from every master. Tests only: the service never scans. */
export async function scanKeys(redis: RedisClient, prefix: string): Promise<string[]> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const found: string[] = [];
  for (const server of servers) {
    for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
      let cursor = '0';
      do {
        const [next, batch] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        found.push(...batch);
      } while (cursor !== '0');
    }
  }
  return found;
}

/** The prefix the service's keys of configured prefix `prefix` are under: its hash tag {prefix} under `npm run test:cluster`. */
export function keyPrefix(prefix: string): string {
  return keyPrefixOf(prefix, { url: REDIS_URL, clusterNodes: REDIS_CLUSTER_NODES });
}

/** For a child that talks to a redis-server of the test's own: no Cluster even under `npm run test:cluster`. */
export const NO_CLUSTER_ENV = { REDIS_CLUSTER_NODES: '' } as const;

export async function deletePrefix(redis: RedisClient, prefix: string): Promise<void> {
  const found = await scanKeys(redis, prefix);
  // One key per DEL: on a Cluster keys of other slots cannot go together.
  for (let i = 0; i < found.length; i += 500) await Promise.all(found.slice(i, i + 500).map((key) => redis.del(key)));
}

/** Small budgets so crashes, retries and lock waits play out in a test's time. */
export function testConfig(prefix: string, overrides: Record<string, unknown> = {}): Config {
  const base = {
    redis: { url: REDIS_URL, prefix, clusterNodes: REDIS_CLUSTER_NODES },
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

/** A test's own connection: to the Cluster under `npm run test:cluster`, else to REDIS_URL. */
export function newRedis(): Redis {
  if (REDIS_CLUSTER_NODES.length === 0) return new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  // Typed as a Redis for the tests that use one; the commands they send are the Cluster's too.
  return new Cluster(hostPorts(REDIS_CLUSTER_NODES), { redisOptions: { maxRetriesPerRequest: null } }) as unknown as Redis;
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
