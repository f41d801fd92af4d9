// Each cluster's share of the registry (SPEC 32): a name lives in exactly
// one cluster, the one its record names (the first when it names none),
// and a cluster's sweep judges only its own names. What another cluster's
// present names claim is kept at hand, so a VM of such a name found here
// is never taken for the name's own.
import type { DesiredEntry, DesiredStateReader } from './ports.js';

/** One cluster as the sweep cuts the registry for it. */
export interface ClusterShare {
  /** Its name (DEFAULT_CLUSTER in the one-cluster form). */
  name: string;
  /** Whether the entry is this cluster's. */
  owns: (entry: DesiredEntry) => boolean;
}

/** SPEC 32: an entry is the cluster's its record names, the first cluster's when it names none. */
export function ownedByRecord(cluster: string, first: string): (entry: DesiredEntry) => boolean {
  return (entry) => (entry.cluster ?? first) === cluster;
}

/** A name present in another cluster: which, and the uid its record claims (absent: every VM of the name). */
export interface NameElsewhere {
  cluster: string;
  uid?: string;
}

/** The registry as one cluster's sweep reads it: another cluster's name reads as one with no record. */
export function ownedReader(registry: DesiredStateReader, owns: (entry: DesiredEntry) => boolean): DesiredStateReader {
  return {
    async listAll() {
      return (await registry.listAll()).filter(owns);
    },
    async get(name) {
      const entry = await registry.get(name);
      return entry !== undefined && owns(entry) ? entry : undefined;
    },
    knownGenerations: () => registry.knownGenerations(),
  };
}

/** The cluster a name's entry is, among the configured ones; undefined for a cluster no longer configured. */
export function shareOf(entry: DesiredEntry, shares: readonly ClusterShare[]): ClusterShare | undefined {
  return shares.find((share) => share.owns(entry));
}

/** The present names of every other cluster than `share`, with the cluster and uid each claims. */
export function namesElsewhere(entries: Iterable<DesiredEntry>, share: ClusterShare, shares: readonly ClusterShare[]): Map<string, NameElsewhere> {
  const elsewhere = new Map<string, NameElsewhere>();
  for (const entry of entries) {
    if (entry.state !== 'present' || share.owns(entry)) continue;
    const cluster = shareOf(entry, shares)?.name ?? entry.cluster ?? 'unconfigured';
    elsewhere.set(entry.name, { cluster, ...(entry.uid === undefined ? {} : { uid: entry.uid }) });
  }
  return elsewhere;
}
