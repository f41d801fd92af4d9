// Per-node and per-image health gauges (SPEC 19, 27), read at each scrape from the last
// health job result the workers keep in Redis, the same one /readyz
// reads. No result yet, or Redis down: no node series, and the scrape
// still answers with everything else (SPEC 24).
import { Gauge, type Registry } from 'prom-client';
import type { LastHealth } from '../queue/health-store.js';
import type { RedisDownProbe } from './redis-down.js';

export interface NodeHealthGauges {
  healthy: Gauge<'node'>;
  reasons: Gauge<'node' | 'reason'>;
  checkedAt: Gauge;
  imageHealthy: Gauge<'image' | 'node'>;
}

export function registerNodeHealthGauges(registry: Registry, lastHealth: () => Promise<LastHealth | undefined>, redisDown: RedisDownProbe): NodeHealthGauges {
  let read: Promise<LastHealth | undefined> | undefined;
  // prom-client starts the collects of a scrape together (Registry.metrics'
  // Promise.all): they share one read, dropped after it settles so the next scrape reads afresh.
  const current = (): Promise<LastHealth | undefined> => {
    read ??= (redisDown() === undefined ? lastHealth() : Promise.resolve(undefined))
      .catch(() => undefined)
      .finally(() => setImmediate(() => (read = undefined)));
    return read;
  };
  const healthy = new Gauge({
    name: 'pvep_node_healthy',
    help: 'Whether the last health job found the node fit to take VMs (1) or not (0), by node (SPEC 19).',
    labelNames: ['node'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const node of (await current())?.nodes ?? []) this.set({ node: node.node }, node.ok ? 1 : 0);
    },
  });
  const reasons = new Gauge({
    name: 'pvep_node_health_reasons',
    help: 'The reasons the last health job gave for a node not fit to take VMs: 1 for each reason present, by node and reason (SPEC 19).',
    labelNames: ['node', 'reason'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const node of (await current())?.nodes ?? []) for (const { reason } of node.reasons) this.set({ node: node.node, reason }, 1);
    },
  });
  const checkedAt = new Gauge({
    name: 'pvep_node_health_checked_timestamp_seconds',
    help: 'When the last health job ran (Unix time); 0 while no result can be read. Stale when no worker runs it.',
    registers: [registry],
    async collect() {
      this.reset();
      const ms = Date.parse((await current())?.at ?? '');
      if (Number.isFinite(ms)) this.set(ms / 1000);
    },
  });
  const imageHealthy = new Gauge({
    name: 'pvep_image_healthy',
    help: "Whether the last health job found the node fit to take VMs of the image (1) or not (0): the node and the image's template there, by image and node (SPEC 19, 27).",
    labelNames: ['image', 'node'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const node of (await current())?.nodes ?? []) for (const image of node.images ?? []) this.set({ image: image.image, node: node.node }, image.ok ? 1 : 0);
    },
  });
  return { healthy, reasons, checkedAt, imageHealthy };
}
