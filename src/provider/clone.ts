// SPEC 13 step 3: the full clone onto the uid's VMID with name and mark,
// probing forward only past VMIDs demonstrably someone else's (F4,
// correction 2).
import type { NodeConfig } from '../config-types.js';
import { messageMatches, CONFIG_EXISTS } from '../proxmox/messages.js';
import type { CreateSpec, OperationContext } from './types.js';
import { beforeWrite, callOpts, logLine, type ProviderDeps } from './deps.js';
import { classifyCall, permanent, transient } from './errors.js';
import { call } from './call.js';
import { probeSequence } from './identity.js';
import { formatMark } from './mark.js';
import { holderOfVmid, type FoundVm } from './ownership.js';
import { waitTask } from './tasks.js';

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
): Promise<CloneOutcome> {
  const range = deps.config.proxmox.vmidRange;
  const sequence = probeSequence(spec.uid, range);
  for (const vmid of sequence) {
    for (let attempt = 0; attempt <= GONE_RETRIES; attempt++) {
      const outcome = await tryClone(deps, ctx, spec, node, vmid);
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
  node: NodeConfig,
  vmid: number,
): Promise<CloneOutcome | 'next' | 'gone'> {
  beforeWrite(ctx);
  let upid: string;
  try {
    upid = await deps.api.clone(
      node.name,
      node.template,
      {
        newid: vmid,
        name: spec.name,
        description: formatMark(spec.uid, deps.now()),
        // Proxmox makes a linked clone of a template unless told otherwise.
        full: true,
        ...(node.storage !== undefined ? { storage: node.storage } : {}),
      },
      callOpts(ctx),
    );
  } catch (err) {
    if (!messageMatches(err, CONFIG_EXISTS)) throw classifyCall(err, ctx.signal);
    const holder = await holderOfVmid(deps, ctx, spec, vmid);
    if (holder.kind === 'ours') {
      await logLine(ctx, `adopted VM ${vmid} on ${holder.vm.node}, already ours`);
      return { vm: holder.vm, cloned: false };
    }
    if (holder.kind === 'gone') return 'gone';
    await logLine(ctx, `VMID ${vmid} is held by another VM; trying the next`);
    return 'next';
  }
  await waitTask(deps, ctx, upid, { what: `clone of template ${node.template} to VM ${vmid}`, budgetSeconds: deps.config.budgets.cloneSeconds });
  const config = await call(ctx, () => deps.api.getConfig(node.name, vmid, callOpts(ctx)));
  if (config.lock) throw transient(`VM ${vmid} still holds lock '${config.lock}' after its clone ended`);
  await logLine(ctx, `cloned template ${node.template} on ${node.name} to VM ${vmid}`);
  return { vm: { node: node.name, vmid, config }, cloned: true };
}
