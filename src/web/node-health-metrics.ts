// Per-node and per-image health gauges (SPEC 19, 27), read at each scrape from the last
// health job result the workers keep in Redis, the same one /readyz
// reads. No result yet, or Redis down: no node series, and the scrape
// still answers with everything else (SPEC 24). With several Proxmox
// clusters (SPEC 32) each node series carries its `cluster` (two clusters
// may both have a pve1); the one-cluster form's series are as they were.
// The clusters' own gauges (cluster-metrics.ts) share the scrape's read.
import { Gauge, type Registry } from 'prom-client';
import { DEFAULT_CLUSTER } from '../config/clusters.js';
import type { ClusterConfig } from '../config/types.js';
import type { NodeHealth } from '../job-table/health-result.schema.js';
import { clusterOfNode } from '../queue/cluster-health.js';
import type { LastHealth } from '../queue/health-store.js';
import { registerClusterGauges, type ClusterGauges } from './cluster-metrics.js';
import type { RedisDownProbe } from './redis-down.js';

/** The clusters the series are of: every configured one, and whether node series name theirs (the several-clusters form). */
export interface HealthClusters {
  all: readonly Pick<ClusterConfig, 'name'>[];
  labelled: boolean;
}

/** The one-cluster form: one cluster, `default`, and node series without a cluster label. */
export const ONE_CLUSTER: HealthClusters = { all: [{ name: DEFAULT_CLUSTER }], labelled: false };

export interface NodeHealthGauges extends ClusterGauges {
  healthy: Gauge;
  reasons: Gauge;
  checkedAt: Gauge;
  imageHealthy: Gauge;
}

export function registerNodeHealthGauges(registry: Registry, lastHealth: () => Promise<LastHealth | undefined>, redisDown: RedisDownProbe, clusters: HealthClusters = ONE_CLUSTER): NodeHealthGauges {
  let read: Promise<LastHealth | undefined> | undefined;
  // prom-client starts the collects of a scrape together (Registry.metrics'
  // Promise.all): they share one read, dropped after it settles so the next scrape reads afresh.
  const current = (): Promise<LastHealth | undefined> => {
    read ??= (redisDown() === undefined ? lastHealth() : Promise.resolve(undefined))
      .catch(() => undefined)
      .finally(() => setImmediate(() => (read = undefined)));
    return read;
  };
  const clusterLabel: string[] = clusters.labelled ? ['cluster'] : [];
  // A node's labels: its name, and its cluster in the several-clusters form.
  const of = (node: NodeHealth): Record<string, string> => (clusters.labelled ? { cluster: clusterOfNode(node, clusters.all), node: node.node } : { node: node.node });
  const healthy = new Gauge({
    name: 'pvep_node_healthy',
    help: 'Whether the last health job found the node fit to take VMs (1) or not (0), by node (SPEC 19).',
    labelNames: [...clusterLabel, 'node'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const node of (await current())?.nodes ?? []) this.set(of(node), node.ok ? 1 : 0);
    },
  });
  const reasons = new Gauge({
    name: 'pvep_node_health_reasons',
    help: 'The reasons the last health job gave for a node not fit to take VMs: 1 for each reason present, by node and reason (SPEC 19).',
    labelNames: [...clusterLabel, 'node', 'reason'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const node of (await current())?.nodes ?? []) for (const { reason } of node.reasons) this.set({ ...of(node), reason }, 1);
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
    labelNames: ['image', ...clusterLabel, 'node'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const node of (await current())?.nodes ?? []) for (const image of node.images ?? []) this.set({ image: image.image, ...of(node) }, image.ok ? 1 : 0);
    },
  });
  return { healthy, reasons, checkedAt, imageHealthy, ...registerClusterGauges(registry, current, clusters.all) };
}
