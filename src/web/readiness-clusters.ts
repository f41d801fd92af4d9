// What /readyz says of several Proxmox clusters (SPEC 32): each cluster's
// state from the last health result (queue/cluster-health.ts), a warning
// naming the clusters that are away while another still takes VMs, and
// the reason when every one is away. The service stays ready while one
// cluster is away: creates that name no cluster go to the others.
import type { ClusterConfig } from '../config/types.js';
import { clusterHealth, type ClusterState } from '../queue/cluster-health.js';
import type { LastHealth } from '../queue/health-store.js';

export interface ClusterReadiness {
  /** Each configured cluster, in the configured order. */
  clusters: { name: string; state: ClusterState }[];
  /** Some clusters are away, not all: which, in words (`named`), and how many, naming none (`counted`: what /readyz tells anyone). */
  warning?: { named: string; counted: string };
  /** Every cluster is away: why /readyz is not ready, naming them. */
  allAway?: string;
}

/** What being away means, of one cluster ("its") or several ("their"). */
function awayMeans(whose: 'its' | 'their'): string {
  return `none of ${whose} nodes answered the last health check; ${whose} VMs are Unknown, and creates that name no cluster go to the others`;
}

/** "cluster b is away" / "clusters b, c are away". */
function areAway(names: readonly string[]): string {
  return names.length === 1 ? `Proxmox cluster ${names[0] ?? ''} is away` : `Proxmox clusters ${names.join(', ')} are away`;
}

export function clusterReadiness(last: LastHealth, configured: readonly Pick<ClusterConfig, 'name'>[]): ClusterReadiness {
  const clusters = clusterHealth(last, configured).map(({ name, state }) => ({ name, state }));
  const away = clusters.filter((cluster) => cluster.state === 'away').map((cluster) => cluster.name);
  if (away.length === 0) return { clusters };
  if (away.length === clusters.length) return { clusters, allAway: `every Proxmox cluster is away (${away.join(', ')}): none of their nodes answered the last health check` };
  const whose = away.length === 1 ? 'its' : 'their';
  const count = `${away.length} of ${clusters.length} Proxmox clusters ${away.length === 1 ? 'is' : 'are'} away`;
  return { clusters, warning: { named: `${areAway(away)}: ${awayMeans(whose)}`, counted: `${count}: ${awayMeans(whose)}` } };
}
