// Each Proxmox cluster's gauges (SPEC 32), from the last health result at
// scrape time (queue/cluster-health.ts, as /readyz and GET /v1/clusters
// read it): pvep_cluster_up 1 while some node of it answers (up or
// degraded), 0 while none does (away), no series while no result names it
// (unknown); pvep_cluster_nodes_healthy its nodes fit to take VMs. The
// one-cluster form has the one cluster `default`.
import { Gauge, type Registry } from 'prom-client';
import type { ClusterConfig } from '../config/types.js';
import { clusterHealth, type ClusterHealth } from '../queue/cluster-health.js';
import type { LastHealth } from '../queue/health-store.js';

export interface ClusterGauges {
  clusterUp: Gauge<'cluster'>;
  clusterNodesHealthy: Gauge<'cluster'>;
}

/** `current` is the scrape's one read of the last health result (node-health-metrics.ts). */
export function registerClusterGauges(registry: Registry, current: () => Promise<LastHealth | undefined>, clusters: readonly Pick<ClusterConfig, 'name'>[]): ClusterGauges {
  // A cluster no result names yet has no series: neither up nor away.
  const known = async () => clusterHealth(await current(), clusters).filter((cluster) => cluster.state !== 'unknown');
  const byCluster = (name: string, help: string, value: (cluster: ClusterHealth) => number): Gauge<'cluster'> =>
    new Gauge({
      name,
      help,
      labelNames: ['cluster'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const cluster of await known()) this.set({ cluster: cluster.name }, value(cluster));
      },
    });
  return {
    clusterUp: byCluster(
      'pvep_cluster_up',
      'Whether some node of the Proxmox cluster answered the last health job (1: up or degraded) or none did (0: away, its VMs Unknown), by cluster; absent until a result names it (SPEC 32).',
      (cluster) => (cluster.state === 'away' ? 0 : 1),
    ),
    clusterNodesHealthy: byCluster('pvep_cluster_nodes_healthy', 'The nodes of the Proxmox cluster the last health job found fit to take VMs, by cluster (SPEC 32).', (cluster) => cluster.nodes.filter((node) => node.ok).length),
  };
}
