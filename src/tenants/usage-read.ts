// What the tenants hold (SPEC 34), read from the sums the accept's script
// and the holds' release keep (src/redis-keys.ts tenantUse): one HGETALL.
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { HELD_QUOTAS, NO_USAGE, type HeldQuota, type TenantUsage } from './types.js';

function isHeldQuota(value: string): value is HeldQuota {
  return (HELD_QUOTAS as readonly string[]).includes(value);
}

/** Every tenant with a sum recorded, and what it holds; a tenant that gave everything back holds zeros. */
export async function readAllUsage(redis: RedisClient, prefix: string): Promise<Map<string, TenantUsage>> {
  const sums = await redis.hgetall(keys.tenantUse(prefix));
  const usage = new Map<string, TenantUsage>();
  for (const [field, value] of Object.entries(sums)) {
    const space = field.lastIndexOf(' ');
    const tenant = field.slice(0, space);
    const quota = field.slice(space + 1);
    if (space <= 0 || !isHeldQuota(quota)) continue;
    const held = usage.get(tenant) ?? { ...NO_USAGE };
    held[quota] = Math.max(0, Number(value) || 0);
    usage.set(tenant, held);
  }
  return usage;
}

export async function readUsage(redis: RedisClient, prefix: string, tenant: string): Promise<TenantUsage> {
  const fields = HELD_QUOTAS.map((quota) => `${tenant} ${quota}`);
  const values = await redis.hmget(keys.tenantUse(prefix), ...fields);
  const held: TenantUsage = { ...NO_USAGE };
  HELD_QUOTAS.forEach((quota, i) => {
    held[quota] = Math.max(0, Number(values[i] ?? 0) || 0);
  });
  return held;
}
