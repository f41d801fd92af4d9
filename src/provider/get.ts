// Get (SPEC 12), in this order: resources entry, config, status/current,
// agent. A running Get makes exactly four calls. Before answering
// NotFound, entries the listing may show under a stale pvestatd sample
// have their config read (SPEC 28): only on that path, and only entries
// under another name or `VM <vmid>` at the uid's VMIDs or at the VMID the
// registry last saw the VM at.
import { isClassified, NotFoundError, TransientError } from '../errors.js';
import type { VmConfig } from '../proxmox/api.js';
import { messageMatches, AGENT_NOT_CONFIGURED, AGENT_NOT_RUNNING, VM_NOT_RUNNING } from '../proxmox/messages.js';
import type { OperationContext, VmObservation, VmRef } from './types.js';
import { callOpts } from './context.js';
import type { ProviderDeps } from './deps.js';
import { classifyCall } from './errors.js';
import { jobSeam } from './job-seam.js';
import { providerId } from './vmid.js';
import { parseMark } from './mark.js';
import { pickAddress } from './address.js';
import { knownButRenamed, walkChain } from './resolve.js';
import { otherCluster } from './cluster-owner.js';

const NOT_FOUND: VmObservation = { state: 'NotFound' };

type Placed = { node: string; vmid: number };

/** The chain's unsure entries, then the registry's last-known one if it is not among them. */
function unsureEntries(unsure: Placed[], known: Placed | undefined): Placed[] {
  return known === undefined || unsure.some((e) => e.vmid === known.vmid) ? unsure : [...unsure, known];
}

/** The first unsure entry whose config carries the name and the uid's mark (a lock is step 2's to judge); undefined when none does. */
async function readUnsure(
  deps: ProviderDeps,
  entries: Placed[],
  ref: VmRef,
  readConfig: (node: string, vmid: number) => Promise<VmConfig | undefined>,
): Promise<(Placed & { config: VmConfig }) | undefined> {
  for (const { node, vmid } of entries) {
    const config = await readConfig(node, vmid);
    if (config?.name === ref.name && parseMark(config.description)?.uid === ref.uid && otherCluster(deps.config.proxmox, config) === undefined) return { node, vmid, config };
  }
  return undefined;
}

export async function getVm(deps: ProviderDeps, ref: VmRef, ctx: OperationContext): Promise<VmObservation> {
  // 1. The resources entry, then the config of the VM it points at.
  const located = await locate(deps, ref, ctx);
  if (located === undefined) return NOT_FOUND;
  const { node, vmid, config } = located;

  // 2. The config: a lock is Transient, name and mark decide ownership, then `suspended` is Stopped.
  if (config.lock && config.lock !== 'suspended') {
    throw new TransientError(`${ref.name}: VM ${vmid} holds lock '${config.lock}'`);
  }
  const mark = parseMark(config.description);
  // SPEC 32: a VM another cluster's mark or tag names is never this cluster's.
  if (config.name !== ref.name || mark?.uid !== ref.uid || otherCluster(deps.config.proxmox, config) !== undefined) return NOT_FOUND;
  const seen: VmObservation = {
    state: 'Stopped',
    providerId: providerId(vmid, ref.name),
    vmid,
    node,
    uid: ref.uid,
    ...(mark.writtenAtCreate ? { createdAt: mark.writtenAtCreate } : {}),
  };
  if (config.lock === 'suspended') return seen;

  // 3. status/current: stopped or paused is Stopped (F14).
  let status;
  try {
    status = await jobSeam(deps, ctx).statusCurrent(node, vmid);
  } catch (err) {
    if (err instanceof NotFoundError) return NOT_FOUND;
    throw err;
  }
  if (status.status !== 'running' || status.qmpstatus === 'paused') return seen;
  return withAgent(deps, ref, ctx, located, seen);
}

/** 1. The resources entry and its config: absent is NotFound (undefined), a lock or `unknown` is Transient before any name is read. */
async function locate(deps: ProviderDeps, ref: VmRef, ctx: OperationContext): Promise<(Placed & { config: VmConfig }) | undefined> {
  const resources = await jobSeam(deps, ctx).clusterResources('vm');
  const found = walkChain(resources, ref.name, ref.uid, deps.config.proxmox.vmidRange);
  if (found.kind === 'busy') throw new TransientError(`${ref.name}: ${found.why}`);
  const readConfig = async (node: string, vmid: number): Promise<VmConfig | undefined> => {
    try {
      return await jobSeam(deps, ctx).getConfig(node, vmid);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  };
  if (found.kind === 'named') {
    const { node, vmid } = found.entry;
    const config = await readConfig(node, vmid);
    return config === undefined ? undefined : { node, vmid, config };
  }
  // Never NotFound from the listing alone (SPEC 28): an entry at the uid's
  // VMIDs or at the registry's last-known one, under another name or
  // `VM <vmid>`, may be ours behind a stale pvestatd sample.
  return readUnsure(deps, unsureEntries(found.unsure, knownButRenamed(resources, ref.name, ref.knownVmid)), ref, readConfig);
}

/** 4. The agent (F5, F21) of a VM that runs: its address, or why there is none yet. */
async function withAgent(deps: ProviderDeps, ref: VmRef, ctx: OperationContext, vm: Placed & { config: VmConfig }, seen: VmObservation): Promise<VmObservation> {
  const { node, vmid, config } = vm;
  try {
    const interfaces = await deps.api.agentInterfaces(node, vmid, callOpts(ctx));
    const address = pickAddress(interfaces, config.net0);
    return address === undefined ? { ...seen, state: 'Provisioning' } : { ...seen, state: 'Running', address };
  } catch (err) {
    if (messageMatches(err, AGENT_NOT_RUNNING)) return { ...seen, state: 'Provisioning' };
    if (messageMatches(err, AGENT_NOT_CONFIGURED)) return seen;
    const classified = classifyCall(err, ctx.signal);
    if (messageMatches(err, VM_NOT_RUNNING)) {
      throw new TransientError(`${ref.name}: VM ${vmid} stopped while it was being read`, { cause: err });
    }
    // Anything else from the agent is Transient, whatever its status code.
    throw isClassified(classified) && classified instanceof TransientError
      ? classified
      : new TransientError(classified.message, { reason: classified.reason, cause: err });
  }
}
