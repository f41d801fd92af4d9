// Step 1 of a sweep (SPEC 5): what is there. Our seeds (the recorded ones,
// and when the backstop is due every node's seed storage listed), then
// in one listing our VMs by tag (SPEC 14) and the VMs of every name the
// registry knows or a seed carries, because a VM gets our tag only after
// its clone (SPEC 11): a crash between the two leaves a VM with our name
// and mark that a tag listing alone cannot see.
import type { ListedVm, OperationContext, SeedIso } from '../provider/types.js';
import type { DesiredEntry, SweepProvider } from './ports.js';
import { knownVms } from './known.js';
import type { NameElsewhere } from './cluster-share.js';

export interface Inventory {
  /** Distinct VMs by VMID, from the one listing of tagged and named VMs. */
  vms: ListedVm[];
  seeds: SeedIso[];
  /** The seed storages were listed this sweep (the backstop), not only the records read. */
  seedsListed: boolean;
  /** The listed seeds no record names: what a sweep from the records alone does not see. */
  unrecordedSeeds: SeedIso[];
  entries: Map<string, DesiredEntry>;
  /** The last generation handed out per name; a name missing was never ours. */
  generations: Map<string, number>;
  /** Names present in another cluster (SPEC 32), not in `entries`: absent in the one-cluster form. */
  elsewhere?: ReadonlyMap<string, NameElsewhere>;
}

export async function takeInventory(
  provider: SweepProvider,
  entries: DesiredEntry[],
  generations: Map<string, number>,
  ctx: OperationContext,
  listStorages = true,
): Promise<Inventory> {
  // Either listing failing fails the sweep: an empty answer must never be
  // read as "nothing is there" (that would re-create every VM).
  const byName = new Map(entries.map((e) => [e.name, e]));
  // The storage listing first: it reads the shared flags the records then use.
  const listed = listStorages ? await provider.listSeeds(ctx) : [];
  const recorded = await provider.listRecordedSeeds(ctx);
  const seeds = mergeSeeds(listed, recorded);
  // Tagged VMs and every known or seed name's VMs in one cluster listing;
  // the VMs the registry knows where they are need no config read (SPEC 26).
  const names = new Set([...byName.keys(), ...seeds.map((seed) => seed.name)]);
  const vms = await provider.listTaggedOrNamed([...names], ctx, knownVms(entries));
  return { vms: mergeByVmid(vms), seeds, seedsListed: listStorages, unrecordedSeeds: unrecorded(listed, recorded), entries: byName, generations };
}

/**
 * One seed per node and volid: the storage's word (its real ctime) over
 * the record's. A record whose seed the listing lacks stays: an upload
 * may be on its way, and deleting a seed that is not there is a no-op that
 * forgets the record (F13).
 */
export function mergeSeeds(listed: SeedIso[], recorded: SeedIso[]): SeedIso[] {
  const byPlace = new Map<string, SeedIso>();
  for (const seed of [...recorded, ...listed]) byPlace.set(placeOf(seed), seed);
  return [...byPlace.values()];
}

function placeOf(seed: SeedIso): string {
  return `${seed.node}/${seed.volid}`;
}

function unrecorded(listed: SeedIso[], recorded: SeedIso[]): SeedIso[] {
  const recordedPlaces = new Set(recorded.map(placeOf));
  return listed.filter((seed) => !recordedPlaces.has(placeOf(seed)));
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
