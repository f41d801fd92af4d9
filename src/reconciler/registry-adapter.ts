// The job layer's desired-state registry (src/queue/registry.ts) as the
// sweep's DesiredStateReader. The generations hash is read directly: it is
// the one record of every name this registry ever handed a generation.
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import type { DesiredRecord } from '../desired-state.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import type { DesiredEntry, DesiredStateReader } from './ports.js';

function toEntry(record: DesiredRecord): DesiredEntry {
  const entry: DesiredEntry = { name: record.name, state: record.state, generation: record.generation, updatedAt: record.updatedAt };
  if (record.uid !== undefined) entry.uid = record.uid;
  if (record.changing !== undefined) entry.changing = record.changing;
  if (record.failed !== undefined) entry.failed = { reason: record.failed.reason, jobId: record.failed.jobId, at: record.failed.at };
  if (record.lease !== undefined) {
    const { expiresAt, version, onExpiry, expiredAt } = record.lease;
    entry.lease = { expiresAt, version, onExpiry, ...(expiredAt !== undefined ? { expiredAt } : {}) };
  }
  if (record.stopped !== undefined) entry.stopped = record.stopped;
  if (record.claimedBy !== undefined) entry.claimedBy = record.claimedBy;
  // SPEC 32: the create's `cluster` is in its spec (several-clusters form only).
  const cluster = record.spec?.cluster;
  if (typeof cluster === 'string') entry.cluster = cluster;
  const seen = record.lastKnown;
  if (seen !== undefined) {
    const { vmid, node, address } = seen;
    entry.lastKnown = { at: seen.at, ...(vmid !== undefined ? { vmid } : {}), ...(node !== undefined ? { node } : {}), ...(address !== undefined ? { address } : {}) };
  }
  return entry;
}

export function registryReader(registry: DesiredStateRegistry, redis: RedisClient, prefix: string): DesiredStateReader {
  return {
    async listAll() {
      return (await registry.list()).map(toEntry);
    },
    async get(name) {
      const record = await registry.get(name);
      return record && toEntry(record);
    },
    async knownGenerations() {
      const all = await redis.hgetall(keys.generations(prefix));
      return new Map(Object.entries(all).map(([name, generation]) => [name, Number(generation)]));
    },
  };
}

/** The last generation handed out for one name; undefined when it was never recorded. */
export async function knownGeneration(redis: RedisClient, prefix: string, name: string): Promise<number | undefined> {
  const value = await redis.hget(keys.generations(prefix), name);
  return value === null ? undefined : Number(value);
}
