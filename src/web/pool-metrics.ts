// The warm pools' gauges (SPEC 30), read at each scrape through the
// pools' listing: idle VMs per pool, and the minIdle each is kept at (so
// an alert can tell an empty pool that should not be). Every web instance
// reads the same keys, so alerts join them with `max`. Redis down, or no
// pools: no series, and the scrape still answers the rest (SPEC 24).
import { Gauge, type Registry } from 'prom-client';
import type { PoolList } from '../pools/pool-view.js';
import type { RedisDownProbe } from './redis-down.js';

export function registerPoolGauges(registry: Registry, pools: (() => Promise<PoolList>) | undefined, redisDown: RedisDownProbe): void {
  // Both gauges read one listing per scrape: the first collect reads it, the second takes the same promise.
  let reading: Promise<PoolList> | undefined;
  const read = (first: boolean): Promise<PoolList> => {
    if (first || reading === undefined) reading = pools === undefined || redisDown() !== undefined ? Promise.resolve({ pools: [] }) : pools().catch(() => ({ pools: [] }));
    return reading;
  };
  new Gauge({
    name: 'pvep_pool_idle_vms',
    help: 'Idle VMs of each warm pool: booted, ready and claimable (SPEC 30).',
    labelNames: ['pool'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const pool of (await read(true)).pools) this.set({ pool: pool.name }, pool.idle);
    },
  });
  new Gauge({
    name: 'pvep_pool_min_idle_vms',
    help: 'The idle VMs each warm pool is kept at (pools[].minIdle, SPEC 30).',
    labelNames: ['pool'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const pool of (await read(false)).pools) this.set({ pool: pool.name }, pool.minIdle);
    },
  });
}
