// The cluster a job's operations go to (SPEC 32): the one its data names
// (a create's, placed at the accept), else, in the several-clusters form
// only, its name's recorded one (the record's spec.cluster); undefined:
// the first cluster. The one-cluster form reads nothing more from Redis.

/** The cluster a name's record says it lives in; given only in the several-clusters form. */
export type RecordedCluster = (name: string) => Promise<string | undefined>;

export async function jobCluster(data: unknown, recorded: RecordedCluster | undefined): Promise<string | undefined> {
  const { name, cluster } = (data ?? {}) as { name?: unknown; cluster?: unknown };
  if (typeof cluster === 'string') return cluster;
  if (typeof name !== 'string' || recorded === undefined) return undefined;
  return recorded(name);
}

/** What recordedClusterOf reads of a record: its spec's cluster, or a cluster the record keeps beside its spec (a tombstone drops its spec). */
interface ClusterOfRecord {
  spec?: Record<string, unknown>;
  cluster?: unknown;
}

/** RecordedCluster over a registry: the record's spec.cluster, else its own `cluster` field (absent, or no record: the first cluster's). */
export function recordedClusterOf(registry: { get(name: string): Promise<ClusterOfRecord | undefined> }): RecordedCluster {
  return async (name) => {
    const record = await registry.get(name);
    const cluster = record?.spec?.cluster ?? record?.cluster;
    return typeof cluster === 'string' ? cluster : undefined;
  };
}
