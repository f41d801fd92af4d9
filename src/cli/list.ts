// `pve-provisioner list [--state S] [--node N] [--cluster C] [--expiring-before T] [--json]` (SPEC 27, 31, 32): every
// name the registry holds, in name order, through the producer library's
// pages; a table, or with --json one JSON document `{ "vms": [...] }`.
// With several Proxmox clusters (SPEC 32) the table has a CLUSTER column;
// the one-cluster form's table is as it was.
// Exit 0, 2 on bad input (the flag named), 1 when Redis is not reachable.
import { parseArgs } from 'node:util';
import { createProvisionerClient, ValidationError } from '../client.js';
import { isMultiCluster } from '../config/clusters.js';
import { cliClientOptions } from './client-options.js';
import type { DesiredView } from '../client.js';
import { MAX_PAGE_LIMIT } from '../queue/vm-listing.js';
import type { VmListQuery } from '../queue/vm-listing.js';
import { loadConfigOrExplain } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { table } from './table.js';
import { jsonDocument } from './terminal-text.js';

const USAGE = [
  'usage: pve-provisioner list [--state present|absent] [--node NODE] [--cluster CLUSTER] [--expiring-before TIME] [--json]',
  '  Every name the service manages, in name order: desired state, what the last job saw (state, node, VMID, address, else the leased address), when its lease expires, when it changed.',
  '  With several Proxmox clusters also the cluster each name lives in; a VM whose cluster is away shows as last seen Unknown (SPEC 32).',
  '  --state  only names desired so; --node  only names whose VM was last seen on that node;',
  '  --cluster  only names that live in that cluster (pve-provisioner clusters lists them);',
  '  --expiring-before  only names whose lease ends before TIME (RFC 3339, e.g. 2030-01-02T03:04:05Z);',
  '  --json   one JSON document {"vms": [...]} (each as GET /v1/vms/{name} shows it, without the job) instead of the table.',
  '',
].join('\n');

const OPTIONS = { state: { type: 'string' }, node: { type: 'string' }, cluster: { type: 'string' }, 'expiring-before': { type: 'string' }, json: { type: 'boolean' } } as const;

/** A listed name with the cluster its view shows in the several-clusters form (SPEC 32). */
type ListedVm = DesiredView & { cluster?: string };

/** The listing's query with the cluster filter (SPEC 32), which the listing checks like its other parameters. */
type ListFilter = VmListQuery & { cluster?: string };

/** The flag of a listing parameter, for an error that names it. */
const FLAG_OF: Record<string, string> = { expiringBefore: 'expiring-before' };

const HEADER = ['NAME', 'STATE', 'LAST SEEN', 'NODE', 'VMID', 'ADDRESS', 'EXPIRES', 'UPDATED'];

function row(vm: DesiredView): string[] {
  const seen = vm.lastKnown;
  const expires = vm.expiresAt === undefined ? '-' : `${vm.expiresAt} (${vm.onExpiry ?? 'delete'})`;
  return [vm.name, vm.state, seen?.state ?? '-', seen?.node ?? '-', seen?.vmid === undefined ? '-' : String(seen.vmid), seen?.address ?? vm.address ?? '-', expires, vm.failed ? `failed: ${vm.failed.reason}` : vm.updatedAt];
}

/** The table, with the CLUSTER column after STATE in the several-clusters form (SPEC 32). */
export function listTable(vms: readonly ListedVm[], severalClusters: boolean): string {
  if (!severalClusters) return table(HEADER, vms.map(row));
  const withCluster = (cells: string[], cluster: string): string[] => [...cells.slice(0, 2), cluster, ...cells.slice(2)];
  return table(withCluster(HEADER, 'CLUSTER'), vms.map((vm) => withCluster(row(vm), vm.cluster ?? '-')));
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('list', USAGE, undefined);
  let values: { state?: string; node?: string; cluster?: string; 'expiring-before'?: string; json?: boolean };
  try {
    values = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    return answerUsage('list', USAGE, describeParseError(err));
  }
  const config = loadConfigOrExplain('list');
  if (config === undefined) return 2;
  const filter: ListFilter = {};
  if (values.state !== undefined) filter.state = values.state as VmListQuery['state'];
  if (values.node !== undefined) filter.node = values.node;
  if (values.cluster !== undefined) filter.cluster = values.cluster;
  if (values['expiring-before'] !== undefined) filter.expiringBefore = values['expiring-before'];

  const client = createProvisionerClient(cliClientOptions(config));
  try {
    const vms: ListedVm[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof client.listVms>> = await client.listVms({ ...filter, limit: MAX_PAGE_LIMIT, ...(cursor === null ? {} : { cursor }) });
      vms.push(...page.vms);
      cursor = page.nextCursor;
    } while (cursor !== null);
    if (values.json) process.stdout.write(jsonDocument({ vms }));
    else process.stdout.write(listTable(vms, isMultiCluster(config)));
    return 0;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return answerUsage('list', USAGE, err.fields.map((f) => `--${FLAG_OF[f.field] ?? f.field} ${f.message}`).join('; '));
  } finally {
    await client.close();
  }
}
