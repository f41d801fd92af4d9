// verify's templates group (SPEC 33): every template of every image on
// every node exists and can give a working VM: what the create's own
// check refuses (templateProblem, SPEC 13 step 2), the guest agent
// enabled, ide2 free for the seed, no `protection` a clone would inherit,
// and net0 on the bridge and VLAN the create puts it on.
import { NotFoundError } from '../../errors.js';
import type { VmConfig } from '../../proxmox/api.js';
import { templateProblem } from '../../provider/template.js';
import { cloudInitDrive, diskSizeBytes, bootDisk, GIB, isProtected } from '../../provider/vm-config.js';
import { errorText, fail, ok, skip, type TemplateEntry, type VerifyContext } from '../context.js';
import type { CheckResult } from '../types.js';
import { factsOf } from './privileges.js';

const GROUP = 'templates';

/** `agent: 1`, or a property string whose `enabled` (its default key) is 1. */
export function agentEnabled(config: VmConfig): boolean {
  const parts = String(config.agent ?? '0').split(',');
  const enabled = parts.find((p) => p.startsWith('enabled='))?.slice('enabled='.length) ?? (parts[0]?.includes('=') ? '0' : parts[0]);
  return enabled === '1' || enabled === 'yes' || enabled === 'on' || enabled === 'true';
}

/** The one line that fixes what templateProblem found. */
function problemFix(ctx: VerifyContext, t: TemplateEntry, config: VmConfig, problem: string): string {
  if (problem.startsWith('it is not a template')) return `qm template ${t.vmid} (on ${t.node})`;
  if (problem.includes('no net0')) return `qm set ${t.vmid} --net0 virtio,bridge=vmbr0 (on ${t.node})`;
  const ci = cloudInitDrive(config);
  if (ci !== undefined) return `qm set ${t.vmid} --delete ${ci} (on ${t.node})`;
  if (problem.includes('no boot disk')) return `give template ${t.vmid} a disk and boot from it: qm set ${t.vmid} --boot order=scsi0 (on ${t.node})`;
  const size = diskSizeBytes(config[bootDisk(config) ?? '']);
  return `raise proxmox.defaults.diskGiB to ${Math.ceil((size ?? 0) / GIB)} or more`;
}

function ide2Result(t: TemplateEntry, config: VmConfig, name: string): CheckResult {
  const ide2 = config.ide2;
  if (ide2 === undefined) return ok(GROUP, `${name}: ide2 free`, 'free for the seed');
  if (/(^|,)media=cdrom(,|$)/.test(String(ide2)) && !/cloudinit/.test(String(ide2))) return ok(GROUP, `${name}: ide2 free`, `a CD-ROM (${String(ide2)}) the seed replaces`);
  return fail(GROUP, `${name}: ide2 free`, `ide2 holds ${String(ide2)}, where the seed goes`, `qm set ${t.vmid} --delete ide2 (on ${t.node})`);
}

function net0Result(ctx: VerifyContext, t: TemplateEntry, config: VmConfig, name: string): CheckResult {
  const facts = factsOf(t.node, t.vmid, config);
  const on = `${facts.bridge ?? 'no bridge'}${facts.tag === undefined ? '' : `, tag ${facts.tag}`}`;
  const node = ctx.config.proxmox.nodes.find((n) => n.name === t.node);
  const moved = node?.bridge !== undefined && node.bridge !== facts.bridge ? ` (the create moves it to ${node.bridge})` : '';
  const tagged = node?.vlanTag !== undefined && node.vlanTag !== facts.tag ? ` (the create tags it ${node.vlanTag})` : '';
  if (facts.bridge === undefined && node?.bridge === undefined) return fail(GROUP, `${name}: net0`, 'net0 names no bridge', `qm set ${t.vmid} --net0 virtio,bridge=vmbr0 (on ${t.node}), or set proxmox.nodes[].bridge`);
  return ok(GROUP, `${name}: net0`, `on ${on}${moved}${tagged}`);
}

function templateResults(ctx: VerifyContext, t: TemplateEntry): CheckResult[] {
  const name = `template ${t.vmid} on ${t.node}`;
  const state = ctx.inventory.nodes.find((n) => n.node === t.node)?.status;
  if (state !== undefined && state !== 'online') return [skip(GROUP, name, `node ${t.node} is ${state}`)];
  if (t.config === undefined) {
    if (t.error instanceof NotFoundError || /does not exist/.test(errorText(t.error))) return [fail(GROUP, name, `VM ${t.vmid} does not exist on ${t.node}`, `set ${t.key} to the VMID of a template on ${t.node}`)];
    return [fail(GROUP, name, `reading its config failed: ${errorText(t.error)}`, `grant VM.Audit on /vms/${t.vmid} (see the privileges checks), or fix ${t.key}`)];
  }
  const config = t.config;
  const problem = templateProblem(config, ctx.config.proxmox.defaults.diskGiB);
  const usable = problem === undefined ? ok(GROUP, name, `${config.name ?? 'unnamed'}: a template with a boot disk`) : fail(GROUP, name, `${config.name ?? 'unnamed'}: ${problem}`, problemFix(ctx, t, config, problem));
  const agent = agentEnabled(config) ? ok(GROUP, `${name}: guest agent`, `agent: ${String(config.agent)}`) : fail(GROUP, `${name}: guest agent`, `agent is ${config.agent === undefined ? 'not set' : String(config.agent)}: no address would ever be reported`, `qm set ${t.vmid} --agent enabled=1 (on ${t.node})`);
  const protection = isProtected(config) ? fail(GROUP, `${name}: protection`, 'protection: 1, which every clone inherits', `qm set ${t.vmid} --protection 0 (on ${t.node})`) : ok(GROUP, `${name}: protection`, 'not protected');
  return [usable, agent, ide2Result(t, config, name), protection, net0Result(ctx, t, config, name)];
}

export async function checkTemplates(ctx: VerifyContext): Promise<CheckResult[]> {
  return (await ctx.templates()).flatMap((t) => templateResults(ctx, t));
}
