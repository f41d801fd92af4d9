// Every key under a prefix with its whole value, read by type, so two
// snapshots compare equal only when nothing under the prefix changed
// (SPEC 22: nothing in the registry changed) and so a scan can look for a
// secret in every value (job data, logs, results, failures included).
import type { Redis } from 'ioredis';
import { scanKeys } from '../support/redis.js';

export type KeyValue = string | string[] | Record<string, string>;

async function readKey(redis: Redis, key: string): Promise<KeyValue> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return redis.hgetall(key);
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'set':
      return (await redis.smembers(key)).sort();
    case 'zset':
      return redis.zrange(key, 0, -1, 'WITHSCORES');
    case 'stream': {
      const entries = await redis.xrange(key, '-', '+');
      return entries.map(([id, fields]) => `${id} ${fields.join(' ')}`);
    }
    case 'none':
      return '(gone)';
    default:
      return `(unreadable type ${type})`;
  }
}

/** key -> value, sorted by key. */
export async function snapshotPrefix(redis: Redis, prefix: string): Promise<Map<string, KeyValue>> {
  const keys = (await scanKeys(redis, prefix)).sort();
  const snapshot = new Map<string, KeyValue>();
  for (const key of keys) snapshot.set(key, await readKey(redis, key));
  return snapshot;
}

/** Keys added, removed or changed between two snapshots. */
export function snapshotDiff(before: Map<string, KeyValue>, after: Map<string, KeyValue>): string[] {
  const changes: string[] = [];
  for (const [key, value] of after) {
    if (!before.has(key)) changes.push(`added ${key}`);
    else if (JSON.stringify(before.get(key)) !== JSON.stringify(value)) changes.push(`changed ${key}`);
  }
  for (const key of before.keys()) if (!after.has(key)) changes.push(`removed ${key}`);
  return changes;
}
