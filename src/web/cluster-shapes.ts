// Each configured cluster's nodes and images (SPEC 32), from the service's
// config, as GET /v1/clusters shows them: every cluster of
// proxmox.clusters, or the one cluster `default` of the single-cluster keys.
import { clustersOf, configForCluster } from '../config/clusters.js';
import type { Config } from '../config/types.js';
import { limitsFromConfig } from '../job-table/schema.js';
import type { ClusterShape } from '../queue/cluster-views.js';

export function clusterShapesOfConfig(config: Pick<Config, 'proxmox'>): ClusterShape[] {
  return clustersOf(config).map((cluster) => {
    // The cluster's own view: its nodes, and its images resolved against them.
    const { nodes, images } = limitsFromConfig(configForCluster(config, cluster));
    return { name: cluster.name, nodes, images: Object.keys(images) };
  });
}
