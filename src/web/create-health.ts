// POST /v1/vms when no node can take a VM (SPEC 19): the web
// process knows node health from the last result the workers stored. By
// default the create is accepted with a warning saying why it will wait;
// with jobs.acceptWhenUnhealthy false it is refused before anything is
// recorded. Several clusters (SPEC 32): the create's cluster is judged,
// the one it names, else the one its name lives in, else those serving
// its image (placement skips an away cluster, so only all of them
// failing stops it), and the words name the clusters.
import type { Config } from '../config/types.js';
import { clustersOf, isMultiCluster } from '../config/clusters.js';
import { limitsFromConfig, type ClusterLimits } from '../job-table/fields.js';
import { clusterHealth } from '../queue/cluster-health.js';
import { failedChecks, nodeCanProvision, type LastHealth } from '../queue/health-store.js';

export type CreateHealthVerdict = { accept: true; warning?: string } | { accept: false; message: string; retryAfterSeconds: number };

/**
 * `cluster`: the one the create names (SPEC 32); absent: it names none.
 * `clusterOfName`: the cluster the create's name already lives in (its
 * record's, present or tombstone), read only with several clusters when
 * the create names none, as placement sends it there.
 */
export type CreateHealthGate = (ask?: CreateAsk, clusterOfName?: () => Promise<string | undefined>) => Promise<CreateHealthVerdict>;

/** What of the create's body says where it may go (SPEC 32): strings as sent, unchecked (the field table checks them). */
export interface CreateAsk {
  cluster?: string;
  image?: string;
  node?: string;
}

/**
 * SPEC 32: the clusters placement may send a create naming no cluster to:
 * those serving its image (on its node, when named); an image a cluster
 * lacks is not a place for it (cluster-placement.ts). No image named:
 * each cluster's default, so every one.
 */
function servingClusters(clusters: readonly ClusterLimits[], { image, node }: CreateAsk): string[] {
  return clusters
    .filter((cluster) => {
      const serving = cluster.images[image ?? cluster.defaultImage] ?? [];
      return node === undefined ? serving.length > 0 : serving.includes(node);
    })
    .map((cluster) => cluster.name);
}

/** Why no node can take a VM, in words, or undefined when one can or nothing is known yet. */
export function noNodeReason(last: LastHealth | undefined): string | undefined {
  if (last === undefined || last.nodes.length === 0 || last.nodes.some(nodeCanProvision)) return undefined;
  const nodes = last.nodes.map((node) => `${node.node}: ${failedChecks(node)}`);
  return `no node can take a VM: the last health check (${last.at}) found ${nodes.join('; ')}`;
}

/**
 * SPEC 32: why the create's cluster (`named`, else none of `among`, else
 * none of them) cannot take a VM, or undefined when one can, or nothing
 * is known of it yet.
 */
export function noClusterReason(last: LastHealth | undefined, clusters: readonly { name: string }[], named: string | undefined, among?: readonly string[]): string | undefined {
  if (last === undefined) return undefined;
  const judged = clusterHealth(last, clusters).filter((cluster) => (named === undefined ? among === undefined || among.includes(cluster.name) : cluster.name === named));
  // An unknown name is the field table's to refuse, naming `cluster`.
  if (judged.length === 0 || judged.some((cluster) => cluster.state === 'unknown' || cluster.nodes.some(nodeCanProvision))) return undefined;
  const found = judged.map((cluster) => `cluster ${cluster.name} ${cluster.state === 'away' ? 'away' : 'with no fit node'} (${cluster.nodes.map((node) => `${node.node}: ${failedChecks(node)}`).join('; ')})`);
  const who = named === undefined ? 'no cluster can' : `cluster ${named} cannot`;
  return `${who} take a VM: the last health check (${last.at}) found ${found.join('; ')}`;
}

export function createHealthGate(config: Pick<Config, 'jobs' | 'health' | 'proxmox' | 'leases' | 'pools'>, lastHealth: () => Promise<LastHealth | undefined>): CreateHealthGate {
  const several = isMultiCluster(config);
  const clusters = clustersOf(config);
  const clusterLimits = limitsFromConfig(config).clusters ?? [];
  return async (ask = {}, clusterOfName) => {
    // SPEC 32: a create naming no cluster goes to its name's, when it has one (cluster-placement.ts): that one is judged;
    // else one of those serving its image: the only one, or none of them able is what refuses it.
    const ofName = several && ask.cluster === undefined && clusterOfName !== undefined ? await clusterOfName() : undefined;
    const among = several && ask.cluster === undefined && ofName === undefined ? servingClusters(clusterLimits, ask) : undefined;
    const cluster = ask.cluster ?? ofName ?? (among?.length === 1 ? among[0] : undefined);
    const last = await lastHealth();
    const reason = several ? noClusterReason(last, clusters, cluster, among?.length === 0 ? undefined : among) : noNodeReason(last);
    if (reason === undefined) return { accept: true };
    const where = several ? `a node of ${cluster === undefined ? 'a cluster' : `cluster ${cluster}`}` : 'a node';
    if (config.jobs.acceptWhenUnhealthy) return { accept: true, warning: `${reason}; the create waits and retries until ${where} passes the health check` };
    return {
      accept: false,
      message: `${reason}; creates are refused while no ${several ? `node of ${cluster === undefined ? 'any cluster' : `cluster ${cluster}`}` : 'node'} passes (jobs.acceptWhenUnhealthy is false): nothing was recorded, try again later`,
      retryAfterSeconds: config.health.everySeconds,
    };
  };
}
