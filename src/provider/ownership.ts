// Who holds a VMID, or a name (SPEC 13 steps 1 and 3, correction 2). A
// clone in progress is waited out, never taken for absent or foreign; a
// VM is adopted only when its name and mark's uid are ours; a VM with
// another name is probed past; our name with a foreign mark, and a
// hibernated VM of ours, are Permanent.
import { NotFoundError } from '../errors.js';
import type { ClusterResource, VmConfig } from '../proxmox/api.js';
import type { CreateSpec, OperationContext } from './types.js';
import type { ProviderDeps } from './deps.js';
import { permanent, transient } from './errors.js';
import { call } from './call.js';
import { jobSeam } from './job-seam.js';
import { parseMark } from './mark.js';
import { qemuEntries } from './resolve.js';
import { waitUnlocked } from './tasks.js';
import { NameHeldByOtherUidError } from './name-held.js';
import { otherCluster } from './cluster-owner.js';

export interface FoundVm {
  node: string;
  vmid: number;
  config: VmConfig;
}

export type Holder = { kind: 'ours'; vm: FoundVm } | { kind: 'other' } | { kind: 'gone' };

function hibernated(name: string, vmid: number): Error {
  return permanent(
    `VM ${vmid} (${name}) is ours but hibernated (lock: suspended); resume or delete it in Proxmox, the service will not touch its saved state`,
  );
}

function foreignMark(name: string, vmid: number, config: VmConfig): Error {
  const mark = parseMark(config.description);
  if (mark?.uid !== undefined) return new NameHeldByOtherUidError(name, vmid, mark.uid);
  const whose = mark === undefined ? 'carries no pve-provisioner mark' : `is marked with another uid (${mark.uid ?? 'none'})`;
  return permanent(`VM ${vmid} is named ${name} but ${whose}; rename or remove it, the service will not take it over`);
}

/**
 * Decides who holds a VM whose config we can read, waiting out a lock
 * (not `suspended`) or a nameless clone in progress.
 */
export async function judge(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: Pick<CreateSpec, 'name' | 'uid'>,
  node: string,
  vmid: number,
): Promise<Holder> {
  let config: VmConfig;
  try {
    config = await jobSeam(deps, ctx).getConfig(node, vmid);
    if (config.lock && config.lock !== 'suspended') config = await waitUnlocked(deps, ctx, node, vmid);
  } catch (err) {
    // The VM went away (a clone that failed): nothing holds the VMID now.
    if (err instanceof NotFoundError) return { kind: 'gone' };
    throw err;
  }
  // SPEC 32: another cluster's VM is someone else's, whatever its name (never adopted, never refused as a foreign mark).
  if (config.name !== spec.name || otherCluster(deps.config.proxmox, config) !== undefined) return { kind: 'other' };
  if (parseMark(config.description)?.uid !== spec.uid) throw foreignMark(spec.name, vmid, config);
  if (config.lock === 'suspended') throw hibernated(spec.name, vmid);
  return { kind: 'ours', vm: { node, vmid, config } };
}

/** `/cluster/resources?type=vm`, shared with the process's other creates and deletes asking at once, sent after this asked. */
export function vmListing(deps: ProviderDeps, ctx: OperationContext): Promise<ClusterResource[]> {
  return deps.waits.reads.vms.read(ctx.signal);
}

/** The holder of a VMID the clone found taken (F4); `gone` when it vanished meanwhile. */
export async function holderOfVmid(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: Pick<CreateSpec, 'name' | 'uid'>,
  vmid: number,
): Promise<Holder> {
  const resources = await call(ctx, () => vmListing(deps, ctx));
  const entry = resources.find((r) => r.vmid === vmid);
  if (!entry) return { kind: 'gone' };
  if (entry.type !== 'qemu' || entry.node === undefined) return { kind: 'other' };
  return judge(deps, ctx, spec, entry.node, vmid);
}

/** Step 1: our VM by name, anywhere in the cluster; another VM with our name is refused. */
export async function findOurs(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: Pick<CreateSpec, 'name' | 'uid'>,
): Promise<FoundVm | undefined> {
  const resources = await call(ctx, () => vmListing(deps, ctx));
  const named = qemuEntries(resources).filter((r) => r.name === spec.name && r.template !== 1);
  let ours: FoundVm | undefined;
  for (const entry of named) {
    const holder = await judge(deps, ctx, spec, entry.node, entry.vmid);
    if (holder.kind === 'ours') {
      if (ours) throw transient(`two VMs of ours are named ${spec.name} (${ours.vmid}, ${entry.vmid}); a delete will remove them`);
      ours = holder.vm;
    }
  }
  return ours;
}

/**
 * A VM other than the one at `exceptVmid` whose config carries `name`
 * (SPEC 2, 30), found as findOurs finds one: the listing's entries of that
 * name, each read from its config. A claim asks before it renames a member
 * to its claimer: a VM of the name is then an earlier uid's (its delete
 * superseded before it ran) or the same uid's, or no VM of ours, and the
 * create's cold way keeps it, replaces it or refuses, as for any create.
 * `knownVmid`, where the registry last saw the name's VM, is read whatever
 * the listing names it (SPEC 28).
 */
export async function otherVmNamed(deps: ProviderDeps, ctx: OperationContext, name: string, exceptVmid: number, knownVmid?: number): Promise<FoundVm | undefined> {
  const resources = await call(ctx, () => vmListing(deps, ctx));
  // pvestatd's names lag up to a cycle: a VM renamed to `name` moments ago (an earlier claim's) is found at the registry's last-known VMID.
  const named = qemuEntries(resources).filter((r) => (r.name === name || r.vmid === knownVmid) && r.template !== 1 && r.vmid !== exceptVmid);
  for (const entry of named) {
    try {
      const config = await jobSeam(deps, ctx).getConfig(entry.node, entry.vmid);
      if (config.name === name && otherCluster(deps.config.proxmox, config) === undefined) return { node: entry.node, vmid: entry.vmid, config };
    } catch (err) {
      // Gone since the listing: it holds no name.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return undefined;
}
