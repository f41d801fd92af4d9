// `pve-provisioner pools [--json]` (SPEC 30): each configured warm pool,
// its shape, bounds, VMs idle, claimed and creating and its refill target, through the
// producer library's listPools (as GET /v1/pools answers); a table, or
// with --json one JSON document `{ "pools": [...] }`. Exit 0, 2 on bad
// input, 1 when Redis is not reachable.
import { parseArgs } from 'node:util';
import { createProvisionerClient } from '../client.js';
import type { PoolView } from '../client.js';
import { cliClientOptions } from './client-options.js';
import { loadConfigOrExplain } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { table } from './table.js';
import { jsonDocument } from './terminal-text.js';

const USAGE = [
  'usage: pve-provisioner pools [--json]',
  '  Each configured warm pool (SPEC 30): its shape (image, cores, memory, disk, network, node), minIdle, maxIdle, maxAgeMinutes,',
  '  its VMs idle (claimable), claimed (taken by a create, being renamed) and creating (the refill), and the refill\'s target',
  '  for idle + creating (minIdle plus the creates that tried to claim within the pool\'s lead time, at most maxIdle).',
  '  --json   one JSON document {"pools": [...]} (as GET /v1/pools answers) instead of the table.',
  '',
].join('\n');

const OPTIONS = { json: { type: 'boolean' } } as const;

function network(pool: PoolView): string {
  if (pool.bridge === undefined && pool.vlanTag === undefined) return '-';
  return `${pool.bridge ?? '-'}${pool.vlanTag === undefined ? '' : `.${pool.vlanTag}`}`;
}

/** The table of the pools, one row each. */
export function poolsTable(pools: readonly PoolView[]): string {
  const rows = pools.map((p) => [p.name, p.image, String(p.cores), String(p.memoryMiB), String(p.diskGiB), network(p), p.node ?? '-', `${p.minIdle}/${p.maxIdle}`, p.maxAgeMinutes === 0 ? 'never' : `${p.maxAgeMinutes}m`, String(p.idle), String(p.claimed), String(p.creating), String(p.target)]);
  return table(['POOL', 'IMAGE', 'CORES', 'MEMORY MIB', 'DISK GIB', 'NETWORK', 'NODE', 'MIN/MAX IDLE', 'MAX AGE', 'IDLE', 'CLAIMED', 'CREATING', 'TARGET'], rows);
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('pools', USAGE, undefined);
  let values: { json?: boolean };
  try {
    values = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    return answerUsage('pools', USAGE, describeParseError(err));
  }
  const config = loadConfigOrExplain('pools');
  if (config === undefined) return 2;
  const client = createProvisionerClient(cliClientOptions(config));
  try {
    const { pools } = await client.listPools();
    process.stdout.write(values.json ? jsonDocument({ pools }) : pools.length === 0 ? 'no pools configured\n' : poolsTable(pools));
    return 0;
  } finally {
    await client.close();
  }
}
