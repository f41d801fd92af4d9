// Step 1 of a sweep (SPEC 5): what is there. Our VMs by tag (SPEC 14), our
// seeds on every node, every name the registry knows, and a look-up by
// name of each of those names and of each seed's name, because a VM gets
// our tag only after its clone (SPEC 11): a crash between the two leaves
// a VM with our name and mark that the tag listing cannot see.
import type { ListedVm, OperationContext, SeedIso } from '../provider/types.js';
import type { DesiredEntry, SweepProvider } from './ports.js';
import { knownVms } from './known.js';

export interface Inventory {
  /** Distinct VMs by VMID, from the tag listing and the look-ups. */
  vms: ListedVm[];
  seeds: SeedIso[];
  entries: Map<string, DesiredEntry>;
  /** The last generation handed out per name; a name missing was never ours. */
  generations: Map<string, number>;
  /** Names whose look-up failed, with the reason: nothing about them is decided. */
  unresolved: Map<string, string>;
}

/** Look-ups run this many at a time, so a big registry does not flood the API. */
const LOOKUP_CONCURRENCY = 8;

export async function takeInventory(
  provider: SweepProvider,
  entries: DesiredEntry[],
  generations: Map<string, number>,
  ctx: OperationContext,
): Promise<Inventory> {
  // Either listing failing fails the sweep: an empty answer must never be
  // read as "nothing is there" (that would re-create every VM).
  const byName = new Map(entries.map((e) => [e.name, e]));
  if (provider.listTaggedOrNamed) {
    // Tagged VMs and every known or seed name's VMs in one cluster listing;
    // the VMs the registry knows where they are need no config read (SPEC 26).
    const seeds = await provider.listSeeds(ctx);
    const names = new Set([...byName.keys(), ...seeds.map((seed) => seed.name)]);
    const vms = await provider.listTaggedOrNamed([...names], ctx, knownVms(entries));
    return { vms: mergeByVmid(vms), seeds, entries: byName, generations, unresolved: new Map() };
  }
  const [tagged, seeds] = await Promise.all([provider.listByTag(ctx), provider.listSeeds(ctx)]);
  const taggedNames = new Set(tagged.flatMap((vm) => (vm.name === undefined ? [] : [vm.name])));
  const names = new Set(byName.keys());
  for (const seed of seeds) if (!taggedNames.has(seed.name)) names.add(seed.name);

  const found: ListedVm[] = [];
  const unresolved = new Map<string, string>();
  if (provider.findByNames && names.size > 0) {
    // One call for every name; failing, it fails the sweep like a listing.
    found.push(...(await provider.findByNames([...names], ctx)));
    return { vms: mergeByVmid([...tagged, ...found]), seeds, entries: byName, generations, unresolved };
  }
  await forEachBounded([...names], LOOKUP_CONCURRENCY, async (name) => {
    ctx.signal.throwIfAborted();
    try {
      found.push(...(await provider.findByName(name, ctx)));
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      unresolved.set(name, err instanceof Error ? err.message : String(err));
    }
  });
  return { vms: mergeByVmid([...tagged, ...found]), seeds, entries: byName, generations, unresolved };
}

/**
 * One entry per VMID. When two answers about one VM disagree on whether it
 * is ours or on its uid (its config changed between the reads), it is
 * reported as unknown and left alone.
 */
export function mergeByVmid(vms: ListedVm[]): ListedVm[] {
  const merged = new Map<number, ListedVm>();
  for (const vm of vms) {
    const seen = merged.get(vm.vmid);
    if (seen === undefined) {
      merged.set(vm.vmid, vm);
      continue;
    }
    const agree = seen.ours === vm.ours && seen.uid === vm.uid && seen.name === vm.name;
    merged.set(vm.vmid, {
      ...seen,
      tagged: seen.tagged || vm.tagged,
      ours: agree ? seen.ours : 'unknown',
    });
  }
  return [...merged.values()];
}

async function forEachBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
