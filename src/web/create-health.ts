// POST /v1/vms when no node can take a VM (SPEC 19): the web
// process knows node health from the last result the workers stored. By
// default the create is accepted with a warning saying why it will wait;
// with jobs.acceptWhenUnhealthy false it is refused before anything is
// recorded. Several clusters (SPEC 32): the create's cluster is judged,
// the one it names, else the one its name lives in, else every one
// (placement skips an away cluster, so only all of them failing stops
// it), and the words name the clusters.
import type { Config } from '../config/types.js';
import { clustersOf, isMultiCluster } from '../config/clusters.js';
import { clusterHealth } from '../queue/cluster-health.js';
import { failedChecks, nodeCanProvision, type LastHealth } from '../queue/health-store.js';

export type CreateHealthVerdict = { accept: true; warning?: string } | { accept: false; message: string; retryAfterSeconds: number };

/**
 * `cluster`: the one the create names (SPEC 32); absent: it names none.
 * `clusterOfName`: the cluster the create's name already lives in (its
 * record's, present or tombstone), read only with several clusters when
 * the create names none, as placement sends it there.
 */
export type CreateHealthGate = (cluster?: string, clusterOfName?: () => Promise<string | undefined>) => Promise<CreateHealthVerdict>;

/** Why no node can take a VM, in words, or undefined when one can or nothing is known yet. */
export function noNodeReason(last: LastHealth | undefined): string | undefined {
  if (last === undefined || last.nodes.length === 0 || last.nodes.some(nodeCanProvision)) return undefined;
  const nodes = last.nodes.map((node) => `${node.node}: ${failedChecks(node)}`);
  return `no node can take a VM: the last health check (${last.at}) found ${nodes.join('; ')}`;
}

/**
 * SPEC 32: why the create's cluster (`named`, else none of them) cannot
 * take a VM, or undefined when one can, or nothing is known of it yet.
 */
export function noClusterReason(last: LastHealth | undefined, clusters: readonly { name: string }[], named: string | undefined): string | undefined {
  if (last === undefined) return undefined;
  const judged = clusterHealth(last, clusters).filter((cluster) => named === undefined || cluster.name === named);
  // An unknown name is the field table's to refuse, naming `cluster`.
  if (judged.length === 0 || judged.some((cluster) => cluster.state === 'unknown' || cluster.nodes.some(nodeCanProvision))) return undefined;
  const found = judged.map((cluster) => `cluster ${cluster.name} ${cluster.state === 'away' ? 'away' : 'with no fit node'} (${cluster.nodes.map((node) => `${node.node}: ${failedChecks(node)}`).join('; ')})`);
  const who = named === undefined ? 'no cluster can' : `cluster ${named} cannot`;
  return `${who} take a VM: the last health check (${last.at}) found ${found.join('; ')}`;
}

export function createHealthGate(config: Pick<Config, 'jobs' | 'health' | 'proxmox'>, lastHealth: () => Promise<LastHealth | undefined>): CreateHealthGate {
  const several = isMultiCluster(config);
  const clusters = clustersOf(config);
  return async (named, clusterOfName) => {
    // SPEC 32: a create naming no cluster goes to its name's, when it has one (cluster-placement.ts): that one is judged.
    const cluster = several && named === undefined && clusterOfName !== undefined ? await clusterOfName() : named;
    const last = await lastHealth();
    const reason = several ? noClusterReason(last, clusters, cluster) : noNodeReason(last);
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
