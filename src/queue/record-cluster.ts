// The cluster a name lives in (SPEC 32), as its record says: the `cluster`
// the accept wrote (kept on its tombstone, so a delete and the sweep know
// where its VM is), else its spec's, else the first cluster (a record
// written in the one-cluster form). Producer-safe.
import type { DesiredRecord } from '../desired-state.js';

/** `firstCluster` undefined: undefined for a record naming none (the worker's router takes that for the first). */
export function clusterOfRecord<First extends string | undefined>(record: Pick<DesiredRecord, 'cluster' | 'spec'>, firstCluster: First): string | First {
  const fromSpec = record.spec?.cluster;
  return record.cluster ?? (typeof fromSpec === 'string' ? fromSpec : firstCluster);
}
