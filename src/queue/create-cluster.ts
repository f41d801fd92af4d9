// A create's cluster at the accept (SPEC 32): the create placed
// (cluster-placement.ts) and what it is then checked, compared and
// claimed with: the cluster's nodes, images and networks, its warm pools,
// and `cluster` compared like a spec field, so a create naming another
// cluster than the present name's is a 409 naming it, decided in the
// accept's one script. The one-cluster form is the create as it came
// (`cluster` may only be "default" there, and nothing records it).
// Producer-safe: no worker code.
import { SPEC_FIELDS, specFieldDefaults, type CreateJobInput } from '../job-table/create.schema.js';
import type { JobLimits } from '../job-table/fields.js';
import type { PoolConfig } from '../pools/types.js';
import { poolsInCluster } from '../pools/pool-for-create.js';
import { limitsInCluster, placeCreate } from './cluster-placement.js';
import type { DesiredStateRegistry } from './registry.js';
import type { LastHealth } from './health-store.js';
import { clusterOfRecord } from './record-cluster.js';

export interface PlacedCreate {
  /** The create with its cluster and its image there (several clusters), or without `cluster` (one). */
  value: CreateJobInput;
  /** Its cluster's: the nodes and images it is checked against, the networks its address pool is chosen from. */
  limits: JobLimits;
  /** The warm pools it may claim from: its cluster's. */
  pools: PoolConfig[];
  /** The fields a present spec must match (SPEC 2), and what one absent from a spec means. */
  compare: readonly string[];
  absentMeans: Record<string, unknown>;
}

const NO_HEALTH = (): Promise<undefined> => Promise.resolve(undefined);

/** Throws ValidationError naming `cluster`, `image` or `node` when the create's cluster cannot take it. */
/** What placement reads (intent.ts IntentWriters has them). */
export interface PlacementSources {
  registry: DesiredStateRegistry;
  limits: JobLimits;
  lastHealth?: () => Promise<LastHealth | undefined>;
}

export async function placedCreate(writers: PlacementSources, given: CreateJobInput, defaultedImage: boolean): Promise<PlacedCreate> {
  const { limits } = writers;
  const [first] = limits.clusters ?? [];
  if (first === undefined) {
    const { cluster: _default, ...value } = given;
    return { value, limits, pools: limits.pools ?? [], compare: SPEC_FIELDS, absentMeans: specFieldDefaults(limits) };
  }
  const clusters = limits.clusters ?? [];
  // A named cluster needs no record: the accept's script compares it with the present one's.
  const record = given.cluster === undefined ? await writers.registry.get(given.name) : undefined;
  const placement = await placeCreate(clusters, given, {
    ...(record === undefined ? {} : { recordCluster: clusterOfRecord(record, first.name) }),
    defaultedImage,
    lastHealth: writers.lastHealth ?? NO_HEALTH,
  });
  return {
    value: { ...given, image: placement.image, cluster: placement.cluster.name },
    limits: limitsInCluster(limits, placement.cluster),
    pools: poolsInCluster(limits.pools ?? [], placement.cluster.name, first.name),
    compare: [...SPEC_FIELDS, 'cluster'],
    absentMeans: { ...specFieldDefaults(limits), cluster: first.name },
  };
}
