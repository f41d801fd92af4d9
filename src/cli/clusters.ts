// `pve-provisioner clusters [--json]` (SPEC 32): each Proxmox cluster
// behind the service, its health, nodes fit, free memory and images,
// through the producer library's listClusters (as GET /v1/clusters
// answers: config and the last health check, read from Redis like
// `pools`); a table, or with --json one JSON document `{ "clusters": [...] }`.
// Exit 0, 2 on bad input, 1 when Redis is not reachable.
import type { ClusterView } from '../client.js';
import { runListing } from './listing-command.js';
import { table } from './table.js';

const USAGE = [
  'usage: pve-provisioner clusters [--json]',
  '  Each Proxmox cluster (SPEC 32; proxmox.clusters, else the one cluster "default"), in the configured order: its health from',
  '  the last health check (up: some node takes VMs; degraded: it answered, no node takes VMs; away: none of its nodes answered,',
  '  its VMs are Unknown and creates that name no cluster go to the others; unknown: not checked yet), its nodes fit to take VMs,',
  '  the free memory of those nodes (placement prefers the most) and the images a create there may name.',
  '  --json   one JSON document {"clusters": [...]} (as GET /v1/clusters answers) instead of the table.',
  '',
].join('\n');

/** The table of the clusters, one row each. */
export function clustersTable(clusters: readonly ClusterView[]): string {
  const rows = clusters.map((c) => {
    const checked = c.nodes.filter((node) => node.ok !== undefined);
    const fit = checked.length === 0 ? '-' : `${c.nodes.filter((node) => node.ok === true).length}/${c.nodes.length}`;
    return [c.name, c.health, fit, c.health === 'unknown' ? '-' : String(c.freeMemoryMiB), c.images.join(',') || '-'];
  });
  return table(['CLUSTER', 'HEALTH', 'NODES FIT', 'FREE MEMORY MIB', 'IMAGES'], rows);
}

export function run(args: string[]): Promise<number> {
  return runListing('clusters', USAGE, args, async (client) => {
    const { clusters } = await client.listClusters();
    return { document: { clusters }, text: clustersTable(clusters) };
  });
}
