// The last health result (SPEC 19), written by the health job and read by
// /readyz. Kept as one JSON string; the newest result replaces the last.
import type { RedisClient } from '../redis-script.js';
import type { NodeHealth } from '../job-table/health-result.schema.js';
import { keys } from '../redis-keys.js';

export interface LastHealth {
  at: string;
  nodes: NodeHealth[];
}

/** Whether the node can take VMs of at least one image (SPEC 27: one broken image leaves the others). */
export function nodeCanProvision(node: NodeHealth): boolean {
  return node.ok || (node.images ?? []).some((image) => image.ok);
}

/** The checks a node failed, in words: "Unreachable (connect ECONNREFUSED ...); ...". */
export function failedChecks(node: NodeHealth): string {
  return node.reasons.map(({ reason, detail }) => `${reason} (${detail})`).join('; ');
}

export async function writeLastHealth(redis: RedisClient, prefix: string, nodes: NodeHealth[], at = new Date()): Promise<void> {
  const value: LastHealth = { at: at.toISOString(), nodes };
  await redis.set(keys.lastHealth(prefix), JSON.stringify(value));
}

export async function readLastHealth(redis: RedisClient, prefix: string): Promise<LastHealth | undefined> {
  const text = await redis.get(keys.lastHealth(prefix));
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as LastHealth;
  } catch {
    return undefined;
  }
}
