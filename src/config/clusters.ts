// Several Proxmox clusters (SPEC 32): the resolved list, the one-cluster
// form made of the single-cluster keys, one cluster's view of the config
// (what the provider, the request budget, the daemon slots and the door's
// limits of that cluster read), and where a cluster's own Redis keys live.
import type { ClusterConfig, Config, ImageConfig, NetworkPoolConfig, NodeConfig } from './types.js';
import { withNetworkDefaults } from './network-pools.js';

/** The one-cluster form's cluster: records, marks and tags carry no cluster, and its Redis keys are the ones they always were. */
export const DEFAULT_CLUSTER = 'default';

/** An entry of proxmox.clusters as the config file gives it (cluster-format.ts checked it). */
export type ClusterInput = Pick<ClusterConfig, 'name' | 'url'> & Partial<Omit<ClusterConfig, 'name' | 'url'>>;

type ProxmoxKeys = Pick<Config['proxmox'], 'url' | 'tokenFile' | 'caFile' | 'nodes' | 'images' | 'defaultImage' | 'networks' | 'maxRequestsPerSecond' | 'daemonSlotsPerNode'>;

/** An entry with what it leaves out taken from the single-cluster keys. */
export function resolveCluster(input: ClusterInput, proxmox: ProxmoxKeys): ClusterConfig {
  return {
    name: input.name,
    url: input.url,
    tokenFile: input.tokenFile ?? proxmox.tokenFile,
    caFile: input.caFile ?? proxmox.caFile,
    nodes: input.nodes ?? proxmox.nodes,
    images: input.images ?? proxmox.images,
    defaultImage: input.defaultImage ?? (input.images === undefined ? proxmox.defaultImage : ''),
    networks: (input.networks ?? proxmox.networks).map(withNetworkDefaults),
    maxRequestsPerSecond: input.maxRequestsPerSecond ?? proxmox.maxRequestsPerSecond,
    daemonSlotsPerNode: input.daemonSlotsPerNode ?? proxmox.daemonSlotsPerNode,
  };
}

/**
 * proxmox.url "sim" with sim.clusters above 1 and no proxmox.clusters
 * (`SIM_CLUSTERS=2 npm start`): that many simulated clusters `sim1`,
 * `sim2`, ..., each of the single-cluster keys.
 */
export function simulatedClusters(config: Pick<Config, 'proxmox' | 'sim'>): ClusterInput[] {
  if (isMultiCluster(config) || config.proxmox.url !== 'sim' || config.sim.clusters <= 1) return [];
  return Array.from({ length: config.sim.clusters }, (_, i) => ({ name: `sim${i + 1}`, url: 'sim' }));
}

/** Whether the config has several clusters' form (proxmox.clusters set): records, marks and tags then carry the cluster. */
export function isMultiCluster(config: Pick<Config, 'proxmox'>): boolean {
  return (config.proxmox.clusters?.length ?? 0) > 0;
}

/** Every cluster, in the configured order; the one-cluster form is one cluster named DEFAULT_CLUSTER. */
export function clustersOf(config: Pick<Config, 'proxmox'>): ClusterConfig[] {
  if (isMultiCluster(config)) return config.proxmox.clusters ?? [];
  const { url, tokenFile, caFile, nodes, images, defaultImage, networks, maxRequestsPerSecond, daemonSlotsPerNode } = config.proxmox;
  return [{ name: DEFAULT_CLUSTER, url, tokenFile, caFile, nodes, images, defaultImage, networks, maxRequestsPerSecond, daemonSlotsPerNode }];
}

/** The cluster a record, job or pool that names none belongs to: the first (SPEC 32). */
export function firstCluster(config: Pick<Config, 'proxmox'>): ClusterConfig {
  const [first] = clustersOf(config);
  if (first === undefined) throw new Error('no cluster is configured');
  return first;
}

/** The cluster named so, or undefined. */
export function clusterNamed(config: Pick<Config, 'proxmox'>, name: string | undefined): ClusterConfig | undefined {
  return name === undefined ? firstCluster(config) : clustersOf(config).find((cluster) => cluster.name === name);
}

/**
 * The config as one cluster's provider, budget, slots and door see it:
 * the single-cluster keys are that cluster's; clusterName is set in the
 * several-clusters form only, so the one-cluster form's view is the
 * config itself.
 */
export function configForCluster<C extends Pick<Config, 'proxmox'>>(config: C, cluster: ClusterConfig): C {
  if (!isMultiCluster(config)) return config;
  const { url, tokenFile, caFile, nodes, images, defaultImage, networks, maxRequestsPerSecond, daemonSlotsPerNode } = cluster;
  return { ...config, proxmox: { ...config.proxmox, url, tokenFile, caFile, nodes, images, defaultImage, networks, maxRequestsPerSecond, daemonSlotsPerNode, clusterName: cluster.name } };
}

/**
 * The prefix of one cluster's own Redis keys (seed records, learned
 * times, last health, request budget, daemon slots, the sweep's seed
 * count): the prefix itself in the one-cluster form, so nothing moves
 * for its users; `<prefix>:cluster:<name>` with several. A Cluster's hash
 * tag `{prefix}` stays in front, so a cluster's keys share its slot.
 */
export function clusterKeyPrefix(prefix: string, clusterName: string | undefined): string {
  return clusterName === undefined ? prefix : `${prefix}:cluster:${clusterName}`;
}

/** Every cluster's address pools (SPEC 29, 32), each name once: a pool's leases are global, whichever cluster's VMs take them. */
export function allNetworks(config: Pick<Config, 'proxmox'>): NetworkPoolConfig[] {
  const byName = new Map<string, NetworkPoolConfig>();
  for (const cluster of clustersOf(config)) for (const pool of cluster.networks) if (!byName.has(pool.name)) byName.set(pool.name, pool);
  return [...byName.values()];
}

/** What the per-cluster lists must agree on across clusters: an address pool's name is global (its Redis keys are). */
export function clusterProblems(clusters: readonly ClusterConfig[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, { cluster: string; pool: NetworkPoolConfig }>();
  for (const cluster of clusters) {
    for (const pool of cluster.networks) {
      const other = seen.get(pool.name);
      if (other !== undefined && other.cluster !== cluster.name && JSON.stringify(other.pool) !== JSON.stringify(pool)) {
        problems.push(`proxmox.clusters: address pool "${pool.name}" of cluster "${cluster.name}" differs from cluster "${other.cluster}"'s; a pool's name names one pool (its addresses are shared)`);
      }
      seen.set(pool.name, { cluster: cluster.name, pool });
    }
  }
  return problems;
}

export type { ClusterConfig, ImageConfig, NodeConfig };
