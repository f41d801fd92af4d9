// Each cluster's state from the last health result (SPEC 19, 32): the web
// process's placement, views, /readyz, GET /v1/clusters and metrics read
// it, so all of them say the same cluster is away.
import type { ClusterConfig } from '../config/types.js';
import { DEFAULT_CLUSTER } from '../config/clusters.js';
import type { NodeHealth } from '../job-table/health-result.schema.js';
import { nodeCanProvision, type LastHealth } from './health-store.js';

/**
 * `up`: some node can take VMs; `degraded`: the cluster answered but no
 * node can; `away`: no node answered (every one Unreachable or
 * CertificateInvalid): its VMs are Unknown; `unknown`: no health result
 * names the cluster yet.
 */
export type ClusterState = 'up' | 'degraded' | 'away' | 'unknown';

export interface ClusterHealth {
  name: string;
  state: ClusterState;
  /** Its nodes in the last result. */
  nodes: NodeHealth[];
  /** Free memory of its nodes that can take VMs (MiB), as the last check read it; 0 when none said. */
  freeMemoryMiB: number;
}

const NOT_ANSWERED = new Set(['Unreachable', 'CertificateInvalid']);

/** The cluster a health entry is of: its own, or the first cluster's for one that names none (the one-cluster form, a result from before clusters). */
export function clusterOfNode(node: NodeHealth, clusters: readonly Pick<ClusterConfig, 'name'>[]): string {
  return node.cluster ?? clusters[0]?.name ?? DEFAULT_CLUSTER;
}

export function clusterHealth(last: LastHealth | undefined, clusters: readonly Pick<ClusterConfig, 'name'>[]): ClusterHealth[] {
  return clusters.map(({ name }) => {
    const nodes = (last?.nodes ?? []).filter((node) => clusterOfNode(node, clusters) === name);
    const answered = nodes.some((node) => !node.reasons.some((r) => NOT_ANSWERED.has(r.reason)) || node.reasons.length === 0);
    const state: ClusterState = nodes.length === 0 ? 'unknown' : !answered ? 'away' : nodes.some(nodeCanProvision) ? 'up' : 'degraded';
    const freeMemoryMiB = nodes.filter(nodeCanProvision).reduce((sum, node) => sum + (node.freeMemoryMiB ?? 0), 0);
    return { name, state, nodes, freeMemoryMiB };
  });
}

/** The names of the clusters the last health found away. */
export function awayClusters(last: LastHealth | undefined, clusters: readonly Pick<ClusterConfig, 'name'>[]): string[] {
  return clusterHealth(last, clusters)
    .filter((cluster) => cluster.state === 'away')
    .map((cluster) => cluster.name);
}
