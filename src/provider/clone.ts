// SPEC 13 step 3: the full clone onto the uid's VMID with name and mark,
// probing forward only past VMIDs demonstrably someone else's: refused at
// once on the template's node (F4), or inside the task when a VM on
// another node holds it (SPEC 23, correction 2). A template on another
// node is cloned across with `target`.
import type { NodeConfig } from '../config/types.js';
import { CLONE_LOCAL_STORAGE, CONFIG_EXISTS, STORAGE_MISSING, VMID_HELD_ELSEWHERE, messageMatches } from '../proxmox/messages.js';
import type { CreateSpec, OperationContext } from './types.js';
import { beforeWrite, callOpts, logLine } from './context.js';
import type { ProviderDeps } from './deps.js';
import { classifyCall, permanent, transient } from './errors.js';
import { jobSeam } from './job-seam.js';
import { probeSequence } from './vmid.js';
import { formatMark } from './mark.js';
import { holderOfVmid, type FoundVm } from './ownership.js';
import { taskExitOf, waitTask } from './tasks.js';
import { perImage } from './waits/expectations.js';
import { describeTemplate, nodeKey, type NodeImageTemplate } from './template-ref.js';
import { storageRefusal } from './storage-refusal.js';

/** How often one VMID is tried again after its holder vanished between the clone and the look. */
const GONE_RETRIES = 3;

export interface CloneOutcome {
  vm: FoundVm;
  /** False when an existing VM of ours was adopted instead. */
  cloned: boolean;
}

export async function cloneOrAdopt(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: CreateSpec,
  node: NodeConfig,
  image: NodeImageTemplate,
): Promise<CloneOutcome> {
  const range = deps.config.proxmox.vmidRange;
  const sequence = probeSequence(spec.uid, range);
  for (const vmid of sequence) {
    for (let attempt = 0; attempt <= GONE_RETRIES; attempt++) {
      const outcome = await tryClone(deps, ctx, spec, { node, image }, vmid);
      if (outcome === 'next') break;
      if (outcome === 'gone') continue;
      return outcome;
    }
  }
  throw permanent(
    `no free VMID for ${spec.name}: the ${sequence.length} VMIDs from ${sequence[0] ?? range.min} on in proxmox.vmidRange are all held by other VMs`,
  );
}

async function tryClone(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: CreateSpec,
  { node, image }: { node: NodeConfig; image: NodeImageTemplate },
  vmid: number,
): Promise<CloneOutcome | 'next' | 'gone'> {
  const template = image.source;
  beforeWrite(ctx);
  let upid: string;
  try {
    upid = await deps.api.clone(
      template.node,
      template.vmid,
      {
        newid: vmid,
        name: spec.name,
        // SPEC 32: the cluster in the mark from the clone on, so no other cluster's provider ever takes the VM for its own.
        description: formatMark(spec.uid, deps.now(), deps.config.proxmox.clusterName),
        // Proxmox makes a linked clone of a template unless told otherwise.
        full: true,
        ...(node.storage !== undefined ? { storage: node.storage } : {}),
        ...(template.target !== undefined ? { target: template.target } : {}),
      },
      callOpts(ctx),
    );
  } catch (err) {
    // F4: the VMID is taken on the node the clone runs on.
    if (!messageMatches(err, CONFIG_EXISTS)) throw refusedClone(deps, node, image, err, ctx.signal);
    return takenVmid(deps, ctx, spec, vmid);
  }
  const what = `clone of ${describeTemplate(template)} to VM ${vmid}`;
  try {
    // A clone's time is the template's disk copy: learned per image (docs/decisions.md, "Learned times in Redis").
    await waitTask(deps, ctx, upid, { what, budgetSeconds: deps.config.budgets.cloneSeconds, kind: perImage('qmclone', image.image) });
  } catch (err) {
    // SPEC 23: the VMID is held on another node; pmxcfs refused it inside the task.
    const exit = taskExitOf(err);
    // SPEC 28: clone_disk found the template's disk storage disabled or not available here.
    if (exit === undefined || !VMID_HELD_ELSEWHERE.test(exit)) throw storageRefusal(deps, node, err, image) ?? err;
    return takenVmid(deps, ctx, spec, vmid);
  }
  const config = await jobSeam(deps, ctx).getConfig(node.name, vmid);
  if (config.lock) throw transient(`VM ${vmid} still holds lock '${config.lock}' after its clone ended`);
  await logLine(ctx, `cloned ${describeTemplate(template)} to VM ${vmid} on ${node.name}`);
  return { vm: { node: node.name, vmid, config }, cloned: true };
}

/** Correction 2: whoever holds the VMID decides: adopt ours, try it again when it went, else the next. */
async function takenVmid(deps: ProviderDeps, ctx: OperationContext, spec: CreateSpec, vmid: number): Promise<CloneOutcome | 'next' | 'gone'> {
  const holder = await holderOfVmid(deps, ctx, spec, vmid);
  if (holder.kind === 'ours') {
    await logLine(ctx, `adopted VM ${vmid} on ${holder.vm.node}, already ours`);
    return { vm: holder.vm, cloned: false };
  }
  if (holder.kind === 'gone') return 'gone';
  await logLine(ctx, `VMID ${vmid} is held by another VM; trying the next`);
  return 'next';
}

/** A refused clone, classified; a storage or template the config names wrongly says which key to fix (SPEC 23, 28). */
function refusedClone(deps: ProviderDeps, node: NodeConfig, image: NodeImageTemplate, err: unknown, signal: AbortSignal): Error {
  const classified = classifyCall(err, signal);
  if (signal.aborted) return classified;
  const refused = storageRefusal(deps, node, err, image);
  if (refused !== undefined) return refused;
  if (messageMatches(err, STORAGE_MISSING) && node.storage !== undefined) {
    return permanent(`storage '${node.storage}' does not exist in the Proxmox cluster: fix ${nodeKey(deps, node, 'storage')}`, classified);
  }
  if (messageMatches(err, CLONE_LOCAL_STORAGE)) {
    return permanent(
      `${describeTemplate(image.source)} has disks on local storage, so Proxmox cannot clone it to ${node.name}: give ${image.key} a template on ${node.name}, or move the template's disks to shared storage`,
      classified,
    );
  }
  return classified;
}
