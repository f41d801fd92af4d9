// Tenants' quota holds for tests (SPEC 34) written straight into the
// tenants' shared layout (src/redis-keys.ts), as the accept's script
// (RECORD_PRESENT) leaves them: the hold under `<name> <uid>`, and its
// sizes added to its tenant's sums.
import type { RedisClient } from '../../src/redis-script.js';
import { keys } from '../../src/redis-keys.js';
import type { TenantHold } from '../../src/tenants/hold-store.js';
import { HELD_QUOTAS } from '../../src/tenants/types.js';

/** A hold of one VM with these sizes (2 cores, 2048 MiB, 20 GiB unless given). */
export function testHold(tenant: string, sizes: Partial<Omit<TenantHold, 'tenant' | 'vms'>> = {}): TenantHold {
  return { tenant, vms: 1, cores: 2, memoryMiB: 2048, diskGiB: 20, ...sizes };
}

/** Writes the hold and adds it to its tenant's sums, as a fresh create's accept does. */
export async function putHold(redis: RedisClient, prefix: string, name: string, uid: string, hold: TenantHold): Promise<void> {
  await redis.hset(keys.tenantHolds(prefix), `${name} ${uid}`, JSON.stringify(hold));
  for (const quota of HELD_QUOTAS) await redis.hincrby(keys.tenantUse(prefix), `${hold.tenant} ${quota}`, hold[quota]);
}

/** The hold's JSON as kept now, or null. */
export function holdJson(redis: RedisClient, prefix: string, name: string, uid: string): Promise<string | null> {
  return redis.hget(keys.tenantHolds(prefix), `${name} ${uid}`);
}

/** JobDeps.tenantHolds for job tests that see no tenant's create: no hold to end. */
export { NO_TENANT_HOLDS } from '../../src/worker/tenant-hold-deps.js';
