// The listing's filter index (SPEC 27; by tenant, SPEC 34; by cluster, SPEC 32): which sorted set a page reads,
// the page's scan of it, and the build of the index over the records an
// older release wrote, once, before the first page that needs it.
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { FORGET_GONE, INDEX_NAMES, INDEX_PAGE } from './vm-index-scripts.js';
import type { RegistryPageQuery } from './vm-listing.js';

/** Entries one INDEX_PAGE call looks at, at most: bounds the script's time when many entries are stale. */
const MOST_LOOKED_AT = 2000;
/** Names per INDEX_NAMES call while building. */
const BUILD_BATCH = 500;

export interface IndexScan {
  /** Names after the start, in name order, whose records passed the filters when read. */
  names: string[];
  /** The last name looked at: where the next scan starts. */
  last: string | undefined;
  /** The set has no name after `last`. */
  done: boolean;
}

type IndexQuery = Pick<RegistryPageQuery, 'state' | 'node' | 'tenant' | 'cluster' | 'firstCluster'>;

/** Set once the tenants' sets are filed for every name (an index built before SPEC 34 is built again once). */
function tenantsBuiltKey(stem: string): string {
  return `${stem}:tenants-built`;
}

/**
 * The first cluster the clusters' sets were filed for (SPEC 32): a record
 * with no cluster is the first's, so another first (the clusters
 * reordered) files them again, once.
 */
function clustersBuiltKey(stem: string): string {
  return `${stem}:clusters-built`;
}

/** The first cluster the index files a record with no cluster under (the scripts' indexedCluster). */
function clusterFirstKey(stem: string): string {
  return `${stem}:cluster-first`;
}

/**
 * The sorted set of the names a query's filters select (every name without
 * a filter). A tenant's own set when it names one: a tenant holds few of
 * many names, so its pages read its names alone, state and node filtered as they are read.
 */
function setOf(stem: string, query: IndexQuery): string {
  if (query.tenant !== undefined) return `${stem}:tenant:${query.tenant}`;
  // A cluster's own set (SPEC 32), state and node filtered as they are read.
  if (query.cluster !== undefined) return `${stem}:cluster:${query.cluster}`;
  if (query.state !== undefined && query.node !== undefined) return `${stem}:node-state:${query.state}:${query.node}`;
  if (query.state !== undefined) return `${stem}:state:${query.state}`;
  if (query.node !== undefined) return `${stem}:node:${query.node}`;
  return `${stem}:all`;
}

export class VmIndex {
  private building: Promise<void> | undefined;
  private clusterBuilding: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** Up to `wanted` names after `after` that pass the query's filters, reading about as many entries as it returns. */
  async scan(query: IndexQuery, after: string | undefined, wanted: number): Promise<IndexScan> {
    const stem = keys.desiredBy(this.prefix);
    const scriptKeys = [stem, keys.desiredIndex(this.prefix), setOf(stem, query), setOf(stem, {}), tenantsBuiltKey(stem), clustersBuiltKey(stem)];
    const cluster = query.cluster === undefined ? ['', ''] : [query.cluster, query.firstCluster ?? query.cluster];
    const args = [after ?? '', wanted, query.state ?? '', query.node ?? '', keys.desired(this.prefix, ''), MOST_LOOKED_AT];
    // Right after a build the counts are not compared again: an older release still writing would make every page build.
    for (const compare of ['1', '0']) {
      const [status, last = '', ...names] = (await INDEX_PAGE.run(this.redis, scriptKeys, [...args, compare, query.tenant ?? '', ...cluster])) as string[];
      if (status !== 'build') return { names, last: last === '' ? undefined : last, done: status === 'done' };
      await (query.cluster === undefined ? this.build() : this.buildClusters(cluster[1] ?? ''));
    }
    throw new Error('the listing index is not built after building it');
  }

  /** Drops from the registry's set of names and from the index those of `names` whose record is gone now (expired tombstones). */
  async forgetGone(names: readonly string[]): Promise<void> {
    const stem = keys.desiredBy(this.prefix);
    for (let i = 0; i < names.length; i += BUILD_BATCH) {
      await FORGET_GONE.run(this.redis, [stem, keys.desiredIndex(this.prefix)], [keys.desired(this.prefix, ''), ...names.slice(i, i + BUILD_BATCH)]);
    }
  }

  /** Files every name of the registry's set under its record's state and node; one build at a time per process. */
  build(): Promise<void> {
    this.building ??= this.buildAll().finally(() => (this.building = undefined));
    return this.building;
  }

  /**
   * The whole index filed again with the clusters' sets, a record with no
   * cluster under `firstCluster` (SPEC 32); after any build under way, one at a time per process.
   */
  buildClusters(firstCluster: string): Promise<void> {
    this.clusterBuilding ??= (async () => {
      await this.building?.catch(() => undefined);
      const stem = keys.desiredBy(this.prefix);
      await this.redis.set(clusterFirstKey(stem), firstCluster);
      await this.buildAll();
      await this.redis.set(clustersBuiltKey(stem), firstCluster);
    })().finally(() => (this.clusterBuilding = undefined));
    return this.clusterBuilding;
  }

  private async buildAll(): Promise<void> {
    const stem = keys.desiredBy(this.prefix);
    const names = await this.redis.smembers(keys.desiredIndex(this.prefix));
    for (let i = 0; i < names.length; i += BUILD_BATCH) {
      await INDEX_NAMES.run(this.redis, [stem, keys.desiredIndex(this.prefix)], [keys.desired(this.prefix, ''), ...names.slice(i, i + BUILD_BATCH)]);
    }
    await this.redis.set(stem, '1');
    await this.redis.set(tenantsBuiltKey(stem), '1');
  }
}
