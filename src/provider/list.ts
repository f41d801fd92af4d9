// ListByTag (SPEC 14), findByName and findByNames (SPEC 5): one resources call, then
// one config read per candidate, a few at a time, for the mark. A
// candidate whose config read fails is reported as unknown, never
// dropped; only the resources call or a cancelled job fails the whole.
// In the several-clusters form a VM whose tag or mark names another
// cluster is that cluster's and left out (SPEC 32, cluster-owner.ts).
import type { ClusterResource } from '../proxmox/api.js';
import type { KnownVm, ListedVm, OperationContext } from './types.js';
import { callOpts, logFor } from './context.js';
import type { ProviderDeps } from './deps.js';
import { classifyCall, throwIfAborted } from './errors.js';
import { mapLimit } from './concurrency.js';
import { parseMark } from './mark.js';
import { hasTag } from './tags.js';
import { isPlaceholderName, maybeNamed, qemuEntries } from './resolve.js';
import { protectedBySomeone } from './vm-config.js';
import { otherCluster, otherClusterTagged } from './cluster-owner.js';

/** Config reads in flight at once while listing. */
export const LIST_CONCURRENCY = 8;

type Entry = ClusterResource & { node: string; vmid: number };

/** The VMs of the listing that are not templates, but another cluster's by their tag (SPEC 32): those cost no config read. */
async function resources(deps: ProviderDeps, ctx: OperationContext): Promise<Entry[]> {
  try {
    const entries = qemuEntries(await deps.api.clusterResources('vm', callOpts(ctx)));
    return entries.filter((r) => r.template !== 1 && otherClusterTagged(deps.config.proxmox, r.tags) === undefined);
  } catch (err) {
    throw classifyCall(err, ctx.signal);
  }
}

/** The candidate as its config shows it; undefined when its config says it is another cluster's (SPEC 32). */
async function describe(deps: ProviderDeps, ctx: OperationContext, entry: Entry): Promise<ListedVm | undefined> {
  const base: ListedVm = {
    vmid: entry.vmid,
    node: entry.node,
    // pvestatd's `VM <vmid>` is no name (SPEC 28): unread, such an entry stays nameless, so it may be any name's.
    ...(entry.name !== undefined && !isPlaceholderName(entry) ? { name: entry.name } : {}),
    ...(entry.status !== undefined ? { status: entry.status } : {}),
    tagged: hasTag(entry.tags, deps.config.proxmox.tag),
    ours: 'unknown',
  };
  try {
    const config = await deps.api.getConfig(entry.node, entry.vmid, callOpts(ctx));
    if (otherCluster(deps.config.proxmox, config) !== undefined) return undefined;
    const mark = parseMark(config.description);
    return {
      ...base,
      ...(config.name !== undefined ? { name: config.name } : {}),
      ...(mark?.uid !== undefined ? { uid: mark.uid } : {}),
      ...(mark?.writtenAtCreate !== undefined ? { createdAt: mark.writtenAtCreate } : {}),
      ...(protectedBySomeone(config, deps.config.proxmox.tag) ? { protected: true as const } : {}),
      ours: mark?.uid !== undefined,
    };
  } catch (err) {
    throwIfAborted(ctx.signal);
    logFor(deps, ctx).warn({ vmid: entry.vmid, node: entry.node, err: classifyCall(err, ctx.signal).message }, 'config read failed while listing; reported as unknown');
    return base;
  }
}

export async function listByTag(deps: ProviderDeps, ctx: OperationContext): Promise<ListedVm[]> {
  const tag = deps.config.proxmox.tag;
  const candidates = (await resources(deps, ctx)).filter((r) => hasTag(r.tags, tag));
  return describeAll(deps, ctx, candidates);
}

/** Each candidate described, a few at a time, a known VM's from the listing (SPEC 26); another cluster's left out (SPEC 32). */
async function describeAll(deps: ProviderDeps, ctx: OperationContext, candidates: Entry[], known: ReadonlyMap<number, KnownVm> = new Map()): Promise<ListedVm[]> {
  const tag = deps.config.proxmox.tag;
  const described = await mapLimit(
    candidates,
    LIST_CONCURRENCY,
    async (c) => {
      const vm = knownEntry(c, tag, known);
      return vm === undefined ? describe(deps, ctx, c) : confirmed(c, vm);
    },
    ctx.signal,
  );
  return described.filter((vm): vm is ListedVm => vm !== undefined);
}

/**
 * Nameless candidates (a clone pvestatd has not named yet, SPEC 23) are kept
 * when their config carries a wanted name, and when their config could not
 * be read: such a VM may be any wanted name's, so it is reported as unknown
 * rather than dropped (SPEC 5: nothing is decided on what was not seen).
 */
function named(listed: ListedVm[], wanted: ReadonlySet<string>, keep: (vm: ListedVm) => boolean = () => false): ListedVm[] {
  return listed.filter((vm) => keep(vm) || (vm.name === undefined ? vm.ours === 'unknown' : wanted.has(vm.name)));
}

/** Every VM carrying the name, tagged or not (a VM cloned just before a crash has no tag yet, SPEC 11). */
export async function findByName(deps: ProviderDeps, name: string, ctx: OperationContext): Promise<ListedVm[]> {
  return findByNames(deps, [name], ctx);
}

/**
 * Every VM carrying one of the names, tagged or not, with one resources
 * call for all of them: the sweep looks up every name the registry knows
 * (SPEC 5, SPEC 21), and one call per name would fetch the whole cluster
 * each time.
 */
export async function findByNames(deps: ProviderDeps, names: string[], ctx: OperationContext): Promise<ListedVm[]> {
  const wanted = new Set(names);
  const range = deps.config.proxmox.vmidRange;
  const candidates = (await resources(deps, ctx)).filter((r) => maybeNamed(r, wanted, range));
  return named(await describeAll(deps, ctx, candidates), wanted);
}

/**
 * The known VM a listing entry is, when the entry carries our tag and the
 * known VM's name, VMID and node (SPEC 26); undefined otherwise. The
 * argument that this is enough is in docs/decisions.md ("A steady sweep
 * reads no config"); a nameless entry, an untagged one (a clone before its
 * tag, SPEC 11) or one moved to another node never matches.
 */
export function knownEntry(entry: { vmid: number; node: string; name?: string; tags?: string }, tag: string, known: ReadonlyMap<number, KnownVm>): KnownVm | undefined {
  const vm = known.get(entry.vmid);
  if (vm === undefined || entry.name !== vm.name || entry.node !== vm.node || !hasTag(entry.tags, tag)) return undefined;
  return vm;
}

/** A known VM as the listing shows it, ours with the registry's uid, its config unread. */
function confirmed(entry: Entry, vm: KnownVm): ListedVm {
  return {
    vmid: entry.vmid,
    node: entry.node,
    name: vm.name,
    uid: vm.uid,
    ...(entry.status !== undefined ? { status: entry.status } : {}),
    ours: true,
    tagged: true,
    fromListing: true,
  };
}

/**
 * The sweep's listing (SPEC 5 step 1, SPEC 14): every VM carrying our tag
 * and every VM carrying one of the names (a clone not yet tagged, SPEC 11),
 * from one resources call. Listing by tag and looking the names up apart
 * would fetch the whole cluster twice. Each candidate's config is read
 * once, except a `known` VM's (SPEC 26): a steady sweep reads none. The
 * entry at a known VMID is a candidate whatever it shows, and is read
 * when it shows another name (SPEC 28: a destroyed VM's sample stays at
 * its VMID for 5 minutes); a clone's temporary-config sample `VM <vmid>`
 * (no disk) in our range is read as nameless, a nameless VM with a disk
 * only by our tag or a known VMID (resolve.ts maybeNamed).
 */
export async function listTaggedOrNamed(deps: ProviderDeps, names: string[], ctx: OperationContext, known: readonly KnownVm[] = []): Promise<ListedVm[]> {
  const tag = deps.config.proxmox.tag;
  const wanted = new Set(names);
  const range = deps.config.proxmox.vmidRange;
  const knownByVmid = new Map(known.map((vm) => [vm.vmid, vm]));
  // An entry at a known VMID is a candidate under any name: a stale pvestatd sample may hide the known VM (SPEC 28).
  const candidates = (await resources(deps, ctx)).filter((r) => hasTag(r.tags, tag) || maybeNamed(r, wanted, range) || knownByVmid.has(r.vmid));
  return named(await describeAll(deps, ctx, candidates, knownByVmid), wanted, (vm) => vm.tagged);
}
