// Whose cluster a VM is (SPEC 32): in the several-clusters form each
// provider sees one cluster, and a VM whose mark or tag names another
// cluster is that cluster's, never this one's: not listed, not matched,
// not deleted, even should two configured clusters be one Proxmox. A VM
// of ours whose mark names no cluster (made in the one-cluster form) is
// the first cluster's. The one-cluster form (no clusterName) judges no
// cluster at all.
import type { ProviderConfig } from './deps.js';
import { parseMark } from './mark.js';
import { taggedClusters } from './tags.js';

type ClusterView = Pick<ProviderConfig['proxmox'], 'clusterName' | 'clusters' | 'tag'>;

/** The other cluster the tags name, before any config is read (a listing entry's tags); undefined when none does. */
export function otherClusterTagged(proxmox: ClusterView, tags: string | undefined): string | undefined {
  const mine = proxmox.clusterName;
  if (mine === undefined) return undefined;
  return taggedClusters(tags, proxmox.tag).find((cluster) => cluster !== mine);
}

/**
 * The other cluster a VM's config says it belongs to: its mark's or its
 * tags' cluster, or for a mark that names none the first cluster;
 * undefined when the VM is this cluster's, or carries no mark (then it is
 * not ours anyway, and the callers' own rules judge it).
 */
export function otherCluster(proxmox: ClusterView, config: { description?: string; tags?: string }): string | undefined {
  const mine = proxmox.clusterName;
  if (mine === undefined) return undefined;
  const mark = parseMark(config.description);
  const named = [...(mark?.cluster === undefined ? [] : [mark.cluster]), ...taggedClusters(config.tags, proxmox.tag)];
  const other = named.find((cluster) => cluster !== mine);
  if (other !== undefined || named.length > 0 || mark === undefined) return other;
  const first = proxmox.clusters?.[0]?.name;
  return first !== undefined && first !== mine ? first : undefined;
}
