// `pve-provisioner list [--state S] [--node N] [--expiring-before T] [--json]` (SPEC 27, 31): every
// name the registry holds, in name order, through the producer library's
// pages; a table, or with --json one JSON document `{ "vms": [...] }`.
// Exit 0, 2 on bad input (the flag named), 1 when Redis is not reachable.
import { parseArgs } from 'node:util';
import { createProvisionerClient, ValidationError } from '../client.js';
import { cliClientOptions } from './client-options.js';
import type { DesiredView } from '../client.js';
import { MAX_PAGE_LIMIT } from '../queue/vm-listing.js';
import type { VmListQuery } from '../queue/vm-listing.js';
import { loadConfigOrExplain } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { table } from './table.js';
import { jsonDocument } from './terminal-text.js';

const USAGE = [
  'usage: pve-provisioner list [--state present|absent] [--node NODE] [--expiring-before TIME] [--json]',
  '  Every name the service manages, in name order: desired state, what the last job saw (state, node, VMID, address, else the leased address), when its lease expires, when it changed.',
  '  --state  only names desired so; --node  only names whose VM was last seen on that node;',
  '  --expiring-before  only names whose lease ends before TIME (RFC 3339, e.g. 2030-01-02T03:04:05Z);',
  '  --json   one JSON document {"vms": [...]} (each as GET /v1/vms/{name} shows it, without the job) instead of the table.',
  '',
].join('\n');

const OPTIONS = { state: { type: 'string' }, node: { type: 'string' }, 'expiring-before': { type: 'string' }, json: { type: 'boolean' } } as const;

/** The flag of a listing parameter, for an error that names it. */
const FLAG_OF: Record<string, string> = { expiringBefore: 'expiring-before' };

function row(vm: DesiredView): string[] {
  const seen = vm.lastKnown;
  const expires = vm.expiresAt === undefined ? '-' : `${vm.expiresAt} (${vm.onExpiry ?? 'delete'})`;
  return [vm.name, vm.state, seen?.state ?? '-', seen?.node ?? '-', seen?.vmid === undefined ? '-' : String(seen.vmid), seen?.address ?? vm.address ?? '-', expires, vm.failed ? `failed: ${vm.failed.reason}` : vm.updatedAt];
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('list', USAGE, undefined);
  let values: { state?: string; node?: string; 'expiring-before'?: string; json?: boolean };
  try {
    values = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    return answerUsage('list', USAGE, describeParseError(err));
  }
  const config = loadConfigOrExplain('list');
  if (config === undefined) return 2;
  const filter: VmListQuery = {};
  if (values.state !== undefined) filter.state = values.state as VmListQuery['state'];
  if (values.node !== undefined) filter.node = values.node;
  if (values['expiring-before'] !== undefined) filter.expiringBefore = values['expiring-before'];

  const client = createProvisionerClient(cliClientOptions(config));
  try {
    const vms: DesiredView[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof client.listVms>> = await client.listVms({ ...filter, limit: MAX_PAGE_LIMIT, ...(cursor === null ? {} : { cursor }) });
      vms.push(...page.vms);
      cursor = page.nextCursor;
    } while (cursor !== null);
    if (values.json) process.stdout.write(jsonDocument({ vms }));
    else process.stdout.write(table(['NAME', 'STATE', 'LAST SEEN', 'NODE', 'VMID', 'ADDRESS', 'EXPIRES', 'UPDATED'], vms.map(row)));
    return 0;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return answerUsage('list', USAGE, err.fields.map((f) => `--${FLAG_OF[f.field] ?? f.field} ${f.message}`).join('; '));
  } finally {
    await client.close();
  }
}
