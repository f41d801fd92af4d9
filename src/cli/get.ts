// `pve-provisioner get NAME [--json]` (SPEC 27): one name's desired state,
// what its last job saw and that job (as GET /v1/vms/{name} answers), as
// lines of text or with --json one JSON document. Exit 0; 1 when no such
// name is known (why on stderr); 2 on bad input.
import { parseArgs } from 'node:util';
import { createProvisionerClient } from '../client.js';
import { cliClientOptions } from './client-options.js';
import type { DesiredView, JobView } from '../client.js';
import { DNS_LABEL } from '../job-table/fields.js';
import { loadConfigOrExplain } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { labelledLines } from './labelled-lines.js';
import { jsonDocument } from './terminal-text.js';

const USAGE = [
  'usage: pve-provisioner get NAME [--json]',
  '  One name: its desired state and spec, its cluster (with several Proxmox clusters, SPEC 32), when its lease expires, its leased address (SPEC 29), what the last job saw (state, node, VMID, address), and that job (state, step, result or failure).',
  '  --json  one JSON document, as GET /v1/vms/{name} answers, instead of the lines.',
  '',
].join('\n');

/** A name's view with the cluster it lives in, shown with several Proxmox clusters (SPEC 32), and whether that cluster is away. */
type ClusteredView = DesiredView & { cluster?: string; clusterAway?: boolean };

function lines(vm: ClusteredView, job: JobView | undefined): string {
  const seen = vm.lastKnown;
  return labelledLines([
    ['name', vm.name],
    ['state', `${vm.state} (generation ${vm.generation}, ${vm.updatedAt})`],
    ['cluster', vm.cluster === undefined ? undefined : `${vm.cluster}${vm.clusterAway === true ? ' (away: its VMs are Unknown until it answers)' : ''}`],
    ['uid', vm.uid],
    ['spec', vm.spec === undefined ? undefined : JSON.stringify(vm.spec)],
    ['failed', vm.failed === undefined ? undefined : `${vm.failed.reason} (job ${vm.failed.jobId})`],
    ['expires', vm.expiresAt === undefined ? undefined : `${vm.expiresAt} (then ${vm.onExpiry ?? 'delete'})`],
    ['leased', vm.address === undefined ? undefined : `${vm.address} (pool ${vm.addressPool ?? '?'})`],
    ['last seen', seen === undefined ? undefined : `${seen.state} at ${seen.at}`],
    ['node', seen?.node],
    ['vmid', seen?.vmid === undefined ? undefined : String(seen.vmid)],
    ['address', seen?.address],
    ['job', job === undefined ? vm.jobId : `${job.id} ${job.state}${job.failedReason === undefined ? '' : `: ${job.failedReason}`}`],
    ['step', job?.step],
  ]);
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('get', USAGE, undefined);
  let parsed: { values: { json?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { json: { type: 'boolean' } }, strict: true, allowPositionals: true });
  } catch (err) {
    return answerUsage('get', USAGE, describeParseError(err));
  }
  const [name, ...extra] = parsed.positionals;
  if (name === undefined) return answerUsage('get', USAGE, 'NAME is required');
  if (extra.length > 0) return answerUsage('get', USAGE, `unexpected argument "${extra.join(' ')}"`);
  if (!DNS_LABEL.test(name)) return answerUsage('get', USAGE, `NAME "${name}" is not a VM name (a DNS label: 1 to 63 of a-z, 0-9 and "-")`);
  const config = loadConfigOrExplain('get');
  if (config === undefined) return 2;

  const client = createProvisionerClient(cliClientOptions(config));
  try {
    const vm = await client.getVm(name);
    if (vm === undefined) {
      process.stderr.write(`pve-provisioner get: no VM named ${name} is known\n`);
      return 1;
    }
    const job = vm.jobId === undefined ? undefined : await client.getJob(vm.jobId);
    process.stdout.write(parsed.values.json ? jsonDocument({ ...vm, job }) : lines(vm, job));
    return 0;
  } finally {
    await client.close();
  }
}
