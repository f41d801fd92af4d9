// What a name's view says of its cluster (SPEC 32), in the several-clusters
// form only: the cluster it lives in and, while the last health finds that
// cluster away, its VM `Unknown` (lastKnown.state) and `clusterAway`, for
// nothing about it can be known (it is neither re-created elsewhere nor
// deleted meanwhile). The one-cluster form's views are as they were: no
// read of the health, nothing added. Producer-safe.
import type { DesiredRecord, LastKnown } from '../desired-state.js';
import type { JobLimits } from '../job-table/fields.js';
import { awayClusters } from './cluster-health.js';
import type { LastHealth } from './health-store.js';
import { clusterOfRecord } from './record-cluster.js';

/** The state a view shows for a VM of a cluster that cannot be reached (SPEC 32; VM_STATES). */
export const UNKNOWN_STATE = 'Unknown';

export interface ClusterShown {
  /** The cluster the name lives in. */
  cluster: string;
  /** The last health found its cluster away: lastKnown.state is Unknown. */
  clusterAway?: true;
  lastKnown?: LastKnown;
}

/** What each record's view adds; undefined in the one-cluster form. */
export type ClusterViewer = (record: Pick<DesiredRecord, 'cluster' | 'spec' | 'lastKnown'>) => ClusterShown;

/** Reads the last health once for the views of one call; none in the one-cluster form. */
export async function clusterViewer(limits: Pick<JobLimits, 'clusters'>, lastHealth: () => Promise<LastHealth | undefined>): Promise<ClusterViewer | undefined> {
  const clusters = limits.clusters ?? [];
  const [first] = clusters;
  if (first === undefined) return undefined;
  const away = new Set(awayClusters(await lastHealth(), clusters));
  return (record) => {
    const cluster = clusterOfRecord(record, first.name);
    if (!away.has(cluster)) return { cluster, ...(record.lastKnown === undefined ? {} : { lastKnown: record.lastKnown }) };
    return { cluster, clusterAway: true, ...(record.lastKnown === undefined ? {} : { lastKnown: { ...record.lastKnown, state: UNKNOWN_STATE } }) };
  };
}
