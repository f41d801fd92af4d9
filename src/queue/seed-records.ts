// The seed records (src/provider/seed-records.ts) in Redis: one hash under
// the service's prefix (hash-tagged on a Cluster, like every other key),
// field `<node>/<volid>`, value the record as JSON.
import type { RedisClient } from '../redis-script.js';
import type { SeedRecord, SeedRecords } from '../provider/seed-records.js';
import { keys } from '../redis-keys.js';

function fieldOf(node: string, volid: string): string {
  return `${node}/${volid}`;
}

function parseRecord(text: string): SeedRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const strings = ['node', 'storage', 'volid', 'name', 'uid', 'at'] as const;
  if (!strings.every((k) => typeof r[k] === 'string') || typeof r.vmid !== 'number') return undefined;
  return value as SeedRecord;
}

export function redisSeedRecords(redis: RedisClient, prefix: string): SeedRecords {
  const key = keys.seeds(prefix);
  return {
    async intend(record) {
      await redis.hset(key, fieldOf(record.node, record.volid), JSON.stringify(record));
    },
    async forget(node, volid) {
      await redis.hdel(key, fieldOf(node, volid));
    },
    async list() {
      // A record this release cannot read is skipped: the backstop listing still finds its seed.
      return Object.values(await redis.hgetall(key)).flatMap((text) => parseRecord(text) ?? []);
    },
  };
}
