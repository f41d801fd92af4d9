// Delete (SPEC 15): resolve the VM by name (and uid when given); stop,
// destroy with purge and unreferenced disks, then its seed on its node.
// With no VM of ours left, the seed on every configured node. A VM that
// is not ours is never touched; a hibernated VM of ours is Permanent, and
// so is one someone protected (SPEC 28): found in its config before the
// stop, or in destroy's answer when protected in between. A clone whose
// create stopped before its config write still has its template's flag:
// that one the delete clears itself. An entry that may be ours behind a
// stale pvestatd sample (`VM <vmid>`, or another name at the uid's VMIDs
// or the registry's last-known one) has its config read before the seeds
// are judged left over (SPEC 28).
import { NotFoundError, type PermanentError } from '../errors.js';
import type { DeleteRequest, DeleteResult, OperationContext } from './types.js';
import { beforeWrite, callOpts, logLine } from './context.js';
import type { ProviderDeps } from './deps.js';
import { permanent, transient } from './errors.js';
import { call } from './call.js';
import { jobSeam } from './job-seam.js';
import { parseMark } from './mark.js';
import { vmListing } from './ownership.js';
import { knownButRenamed, maybeNamed, qemuEntries, walkChain } from './resolve.js';
import type { ClusterResource } from '../proxmox/api.js';
import { seedFileName } from '../nocloud/seed.js';
import { seedVolid } from './seeds.js';
import { runTask, taskExitOf } from './tasks.js';
import { isProtected, protectedBySomeone } from './vm-config.js';
import { messageMatches, PROTECTION_ENABLED } from '../proxmox/messages.js';
import { configuredNode } from './placement.js';
import { otherCluster } from './cluster-owner.js';

export interface Doomed {
  node: string;
  vmid: number;
  /** Its protection is the template's, copied by a clone its create never configured (SPEC 28): the delete clears it. */
  clearProtection?: true;
  /** A stop's (SPEC 31) VM hibernated (lock: suspended): stopped already, its saved state left alone. */
  hibernated?: true;
}

interface Resolved {
  doomed: Doomed[];
  /** VMs of ours with this name but another uid: they still use the name's seed. */
  othersWithName: number;
}

/**
 * The VMs of ours the request names. For a `stop` (SPEC 31) a protected VM
 * is fine (Proxmox's protection guards the destroy, not the stop) and a
 * hibernated one is stopped already: it is kept, marked, to be left alone.
 */
export async function resolveOurs(deps: ProviderDeps, ctx: OperationContext, request: DeleteRequest, purpose: 'delete' | 'stop' = 'delete'): Promise<Resolved> {
  const range = deps.config.proxmox.vmidRange;
  // Shared with the process's other operations asking at once; sent after this asked, so after the name's lock.
  const resources = await call(ctx, () => vmListing(deps, ctx));
  const doubtful: ClusterResource[] = [];
  if (request.uid !== undefined) {
    // Correction 1: a clone in progress at the uid's VMID is not an absence.
    const chain = walkChain(resources, request.name, request.uid, range);
    if (chain.kind === 'busy') throw transient(`${request.name}: ${chain.why}; deleting after it settles`);
    if (chain.kind === 'absent') doubtful.push(...chain.unsure);
  }
  // SPEC 28: the registry's last-known VMID under another name may be ours behind a stale pvestatd sample.
  const known = knownButRenamed(resources, request.name, request.knownVmid);
  if (known !== undefined) doubtful.push(known);
  const doomed: Doomed[] = [];
  let othersWithName = 0;
  const candidates = qemuEntries(resources).filter(
    (r) => (maybeNamed(r, new Set([request.name]), range) || doubtful.some((d) => d.vmid === r.vmid)) && r.template !== 1,
  );
  for (const entry of candidates) {
    let config;
    try {
      config = await jobSeam(deps, ctx).getConfig(entry.node, entry.vmid);
    } catch (err) {
      if (err instanceof NotFoundError) continue;
      throw err;
    }
    const uid = parseMark(config.description)?.uid;
    // SPEC 32: another cluster's VM is never touched, nor does it keep this cluster's seed.
    if (config.name !== request.name || uid === undefined || otherCluster(deps.config.proxmox, config) !== undefined) continue;
    if (request.uid !== undefined && uid !== request.uid) {
      othersWithName += 1;
      continue;
    }
    if (config.lock === 'suspended' && purpose === 'stop') {
      doomed.push({ node: entry.node, vmid: entry.vmid, hibernated: true });
      continue;
    }
    if (config.lock === 'suspended') {
      throw permanent(`VM ${entry.vmid} (${request.name}) is ours but hibernated (lock: suspended); resume or delete it in Proxmox`);
    }
    if (config.lock) throw transient(`${request.name}: VM ${entry.vmid} holds lock '${config.lock}'`);
    // Checked before any write: a stop would leave it stopped and still there.
    if (purpose === 'delete' && protectedBySomeone(config, deps.config.proxmox.tag)) throw protectedVm(request.name, entry);
    doomed.push({ node: entry.node, vmid: entry.vmid, ...(isProtected(config) ? { clearProtection: true as const } : {}) });
  }
  return { doomed, othersWithName };
}

/** The words a user needs to remove a protected VM of ours (SPEC 28, audit 7.1). */
function protectedVm(name: string, vm: Doomed, cause?: unknown): PermanentError {
  return permanent(
    `VM ${name} (vmid ${vm.vmid} on ${vm.node}) is protected: clear its protection (qm set ${vm.vmid} --protection 0, or Options > Protection in the GUI) and delete again`,
    cause,
  );
}

/** destroy_vm's check_protection, in its answer or (protected since the fork) its task's exit. */
function refusedAsProtected(err: unknown): boolean {
  const exit = taskExitOf(err);
  if (exit !== undefined) return PROTECTION_ENABLED.test(exit);
  return err instanceof Error && err.cause !== undefined && messageMatches(err.cause, PROTECTION_ENABLED);
}

/** The stop step (a task) of a VM not stopped yet; true when it stopped it (SPEC 15, 31). */
export async function stopIfRunning(deps: ProviderDeps, ctx: OperationContext, vm: Pick<Doomed, 'node' | 'vmid'>): Promise<boolean> {
  const status = await jobSeam(deps, ctx).statusCurrent(vm.node, vm.vmid);
  if (status.status === 'stopped') return false;
  await runTask(deps, ctx, `stop of VM ${vm.vmid}`, () => deps.api.stop(vm.node, vm.vmid, callOpts(ctx)));
  await logLine(ctx, `stopped VM ${vm.vmid}`);
  return true;
}

async function destroyVm(deps: ProviderDeps, ctx: OperationContext, name: string, vm: Doomed): Promise<void> {
  if (vm.clearProtection) {
    beforeWrite(ctx);
    await jobSeam(deps, ctx).putConfig(vm.node, vm.vmid, { delete: 'protection' });
    await logLine(ctx, `cleared the protection VM ${vm.vmid} copied from its template (its create never reached its config write)`);
  }
  await stopIfRunning(deps, ctx, vm);
  try {
    await runTask(deps, ctx, `destroy of VM ${vm.vmid}`, () =>
      deps.api.destroy(vm.node, vm.vmid, { purge: true, destroyUnreferencedDisks: true }, callOpts(ctx)),
    );
  } catch (err) {
    if (refusedAsProtected(err)) throw protectedVm(name, vm, err);
    throw err;
  }
  await logLine(ctx, `destroyed VM ${vm.vmid} on ${vm.node}`);
}

async function deleteSeedOn(deps: ProviderDeps, ctx: OperationContext, nodeName: string, name: string): Promise<void> {
  const node = configuredNode(deps, nodeName);
  if (!node) return;
  const volid = seedVolid(node.isoStorage, name);
  await runTask(deps, ctx, `delete of ${volid} on ${node.name}`, () => deps.api.deleteVolume(node.name, node.isoStorage, volid, callOpts(ctx)));
  await deps.seedRecords?.forget(node.name, volid);
  await logLine(ctx, `deleted ${volid} on ${node.name}`);
}

/** Every configured node's seed of this name that exists; a repeat finds none. */
async function deleteSeedsEverywhere(deps: ProviderDeps, ctx: OperationContext, name: string): Promise<number> {
  let deleted = 0;
  for (const node of deps.config.proxmox.nodes) {
    const volid = seedVolid(node.isoStorage, name);
    const volumes = await jobSeam(deps, ctx).storageContent(node.name, node.isoStorage, 'iso');
    if (!volumes.some((v) => v.volid === volid)) {
      // No seed there: a record of one (an upload that never ran) is stale.
      await deps.seedRecords?.forget(node.name, volid);
      continue;
    }
    await deleteSeedOn(deps, ctx, node.name, name);
    deleted += 1;
  }
  return deleted;
}

export async function deleteVm(deps: ProviderDeps, request: DeleteRequest, ctx: OperationContext): Promise<DeleteResult> {
  const { doomed, othersWithName } = await resolveOurs(deps, ctx, request);
  // The seed is named after the VM name, not the uid: while a VM of ours
  // with another uid carries the name (an orphan swept by uid), its ide2
  // still points at that seed, so the seed stays.
  const keepSeeds = othersWithName > 0;
  if (doomed.length === 0) {
    if (keepSeeds) {
      await logLine(ctx, `no VM of ours named ${request.name} with uid ${request.uid ?? '(any)'}; ${seedFileName(request.name)} kept for the VM of ours with another uid`);
      return { deleted: false, seedsDeleted: 0 };
    }
    const seedsDeleted = await deleteSeedsEverywhere(deps, ctx, request.name);
    await logLine(ctx, `no VM of ours named ${request.name}; ${seedsDeleted} ${seedFileName(request.name)} removed`);
    return { deleted: false, seedsDeleted };
  }
  let seedsDeleted = 0;
  for (const vm of doomed) {
    await destroyVm(deps, ctx, request.name, vm);
    if (keepSeeds) continue;
    await deleteSeedOn(deps, ctx, vm.node, request.name);
    seedsDeleted += 1;
  }
  return { deleted: true, vmid: doomed[0]?.vmid, seedsDeleted };
}
