// The tenants' gauges (SPEC 34), read at each scrape: what each configured
// tenant holds (its holds' sums in Redis) and its quotas (the tokens
// file's), by quota. Only the tenants of the tokens file get series, so the
// labels stay bounded whatever names a Redis hash has picked up. Every web
// instance reads the same keys, so alerts join them with `max`. Redis
// down: no usage series, the quotas still; the scrape answers (SPEC 24).
import { Gauge, type Registry } from 'prom-client';
import type { RedisClient } from '../redis-script.js';
import { HELD_QUOTAS, NO_USAGE, QUOTA_NAMES, type Tenant, type TenantUsage } from '../tenants/types.js';
import { readAllUsage } from '../tenants/usage-read.js';
import type { RedisDownProbe } from './redis-down.js';

/** One Tenant per name: the tokens file gives a tenant once per token line, each with the tenant's quotas. */
function byName(tenants: readonly Tenant[]): Tenant[] {
  const seen = new Map<string, Tenant>();
  for (const tenant of tenants) if (!seen.has(tenant.name)) seen.set(tenant.name, tenant);
  return [...seen.values()];
}

/**
 * pvep_tenant_usage{tenant,quota} and pvep_tenant_quota{tenant,quota} for
 * `tenants` (the tokens file's); `usage` reads every tenant's sums (one
 * HGETALL, tenantUsageReader), undefined for no usage series at all.
 */
export function registerTenantGauges(registry: Registry, tenants: readonly Tenant[], usage: (() => Promise<Map<string, TenantUsage>>) | undefined, redisDown: RedisDownProbe): void {
  const configured = byName(tenants);
  new Gauge({
    name: 'pvep_tenant_usage',
    help: "What each configured tenant holds now, by quota: VMs, cores, memoryMiB and diskGiB summed over its creates not yet gone (SPEC 34).",
    labelNames: ['tenant', 'quota'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (usage === undefined || configured.length === 0 || redisDown() !== undefined) return;
      const held = await usage().catch(() => undefined);
      if (held === undefined) return;
      for (const tenant of configured) {
        const sums = held.get(tenant.name) ?? NO_USAGE;
        for (const quota of HELD_QUOTAS) this.set({ tenant: tenant.name, quota }, sums[quota]);
      }
    },
  });
  new Gauge({
    name: 'pvep_tenant_quota',
    help: "Each configured tenant's quotas from the tokens file (vms, cores, memoryMiB, diskGiB, createsPerMinute); a quota not given is no limit and has no series (SPEC 34).",
    labelNames: ['tenant', 'quota'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const tenant of configured) {
        for (const quota of QUOTA_NAMES) {
          const limit = tenant.quotas[quota];
          if (limit !== undefined) this.set({ tenant: tenant.name, quota }, limit);
        }
      }
    },
  });
}

/** Every tenant's sums on this connection, for registerTenantGauges. */
export function tenantUsageReader(redis: RedisClient, prefix: string): () => Promise<Map<string, TenantUsage>> {
  return () => readAllUsage(redis, prefix);
}
