// `pve-provisioner pools [--json]` (SPEC 30): each configured warm pool,
// its shape, bounds, VMs idle, claimed and creating and its refill target, through the
// producer library's listPools (as GET /v1/pools answers); a table, or
// with --json one JSON document `{ "pools": [...] }`. Exit 0, 2 on bad
// input, 1 when Redis is not reachable.
import type { PoolView } from '../client.js';
import { runListing } from './listing-command.js';
import { table } from './table.js';

const USAGE = [
  'usage: pve-provisioner pools [--json]',
  '  Each configured warm pool (SPEC 30): its shape (image, cores, memory, disk, network, node), minIdle, maxIdle, maxAgeMinutes,',
  '  its VMs idle (claimable), claimed (taken by a create, being renamed) and creating (the refill), and the refill\'s target',
  '  for idle + creating (minIdle plus the creates that tried to claim within the pool\'s lead time, at most maxIdle).',
  '  --json   one JSON document {"pools": [...]} (as GET /v1/pools answers) instead of the table.',
  '',
].join('\n');

function network(pool: PoolView): string {
  if (pool.bridge === undefined && pool.vlanTag === undefined) return '-';
  return `${pool.bridge ?? '-'}${pool.vlanTag === undefined ? '' : `.${pool.vlanTag}`}`;
}

/** The table of the pools, one row each. */
export function poolsTable(pools: readonly PoolView[]): string {
  const rows = pools.map((p) => [p.name, p.image, String(p.cores), String(p.memoryMiB), String(p.diskGiB), network(p), p.node ?? '-', `${p.minIdle}/${p.maxIdle}`, p.maxAgeMinutes === 0 ? 'never' : `${p.maxAgeMinutes}m`, String(p.idle), String(p.claimed), String(p.creating), String(p.target)]);
  return table(['POOL', 'IMAGE', 'CORES', 'MEMORY MIB', 'DISK GIB', 'NETWORK', 'NODE', 'MIN/MAX IDLE', 'MAX AGE', 'IDLE', 'CLAIMED', 'CREATING', 'TARGET'], rows);
}

export function run(args: string[]): Promise<number> {
  return runListing('pools', USAGE, args, async (client) => {
    const { pools } = await client.listPools();
    return { document: { pools }, text: pools.length === 0 ? 'no pools configured\n' : poolsTable(pools) };
  });
}
