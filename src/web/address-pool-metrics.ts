// The address pools' gauge (SPEC 29), read at each scrape from Redis: the
// addresses of each configured pool in use (leased), resting their
// cooldown, and free to hand out. Every web instance reads the same keys,
// so the alert joins them with `max`. Redis down, or no pools: no series,
// and the scrape still answers with everything else (SPEC 24).
import { Gauge, type Registry } from 'prom-client';
import { AddressPoolStore, type PoolCounts } from '../addresses/address-pool-store.js';
import type { NetworkPoolConfig } from '../config/types.js';
import type { RedisClient } from '../redis-script.js';
import type { RedisDownProbe } from './redis-down.js';

export function registerAddressPoolGauge(registry: Registry, counts: (() => Promise<PoolCounts[]>) | undefined, redisDown: RedisDownProbe): Gauge<'pool' | 'state'> {
  return new Gauge({
    name: 'pvep_address_pool_addresses',
    help: 'Addresses of each address pool (proxmox.networks), by pool and state: in_use (leased to a VM name), cooling (freed, resting reuseCooldownSeconds) and free (SPEC 29).',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (counts === undefined || redisDown() !== undefined) return;
      for (const pool of await counts().catch(() => [])) {
        this.set({ pool: pool.pool, state: 'in_use' }, pool.inUse);
        this.set({ pool: pool.pool, state: 'cooling' }, pool.cooling);
        this.set({ pool: pool.pool, state: 'free' }, pool.free);
      }
    },
  });
}

/** The configured pools' figures on this connection: one script per read, none without pools. */
export function addressPoolFigures(redis: RedisClient, prefix: string, pools: readonly NetworkPoolConfig[]): () => Promise<PoolCounts[]> {
  const store = new AddressPoolStore(redis, prefix, pools);
  return () => store.counts();
}
