// The cluster a job's operations go to (SPEC 32): the one its data names
// (a create's, placed at the accept), else, in the several-clusters form
// only, its name's recorded one (record-cluster.ts, shared with the door); undefined:
// the first cluster. The one-cluster form reads nothing more from Redis.
import type { DesiredRecord } from '../desired-state.js';
import { awayClusters } from '../queue/cluster-health.js';
import { clusterOfRecord } from '../queue/record-cluster.js';
import type { LastHealth } from '../queue/health-store.js';

/** The cluster a name's record says it lives in; given only in the several-clusters form. */
export type RecordedCluster = (name: string) => Promise<string | undefined>;

export async function jobCluster(data: unknown, recorded: RecordedCluster | undefined): Promise<string | undefined> {
  const { name, cluster } = (data ?? {}) as { name?: unknown; cluster?: unknown };
  if (typeof cluster === 'string') return cluster;
  if (typeof name !== 'string' || recorded === undefined) return undefined;
  return recorded(name);
}

/** RecordedCluster over a registry: the record's own cluster (its tombstone keeps it), else its spec's (absent, or no record: the first cluster's). */
export function recordedClusterOf(registry: { get(name: string): Promise<Pick<DesiredRecord, 'cluster' | 'spec'> | undefined> }): RecordedCluster {
  return async (name) => {
    const record = await registry.get(name);
    return record === undefined ? undefined : clusterOfRecord(record, undefined);
  };
}

/**
 * How long a job of an away cluster waits (SPEC 32): the cluster away in
 * the last health result (the first cluster's for none), a health
 * interval give or take half, so the jobs of a cluster that came back
 * spread; a health read that fails is no wait (the job runs and its calls
 * say what they find).
 */
export function awayWaitOf(lastHealth: () => Promise<LastHealth | undefined>, clusters: readonly { name: string }[], everyMs: number, random: () => number = Math.random): (cluster: string | undefined) => Promise<number | undefined> {
  return async (cluster) => {
    const name = cluster ?? clusters[0]?.name;
    const last = await lastHealth().catch(() => undefined);
    if (name === undefined || !awayClusters(last, clusters).includes(name)) return undefined;
    return Math.round(everyMs * (0.5 + random()));
  };
}
