// One cluster's turn in a sweep (SPEC 5, 32): its seeds and VMs listed,
// its names judged and acted on. The address leases and the tenants'
// holds wait for every cluster's turn (sweep-held.ts): a VM on any cluster
// may carry one.
import { takeInventory } from './inventory.js';
import type { Inventory } from './inventory.js';
import { decide } from './decide.js';
import { act } from './act.js';
import { emptyReport } from './report.js';
import type { SweepReport } from './report.js';
import type { OperationContext } from '../provider/types.js';
import type { NameElsewhere } from './cluster-share.js';
import type { DesiredEntry, SweepDeps } from './ports.js';

/** What the registry said when the sweep read it, cut for this cluster. */
export interface ClusterNames {
  /** This cluster's entries. */
  entries: DesiredEntry[];
  /** Every name's last generation (the registry's, kept for ever). */
  generations: Map<string, number>;
  /** The names present in other clusters (several-clusters form). */
  elsewhere?: ReadonlyMap<string, NameElsewhere>;
}

export interface ClusterTurnOptions {
  dryRun: boolean;
  byHand?: boolean;
  /**
   * Several clusters (SPEC 32): a failed listing skips this cluster. In
   * the one-cluster form it fails the sweep, as it always did.
   */
  skipUnlisted: boolean;
}

export type ClusterTurn = { state: 'swept'; report: SweepReport; inventory: Inventory } | { state: 'skipped'; reason: string };

export async function sweepCluster(deps: SweepDeps, names: ClusterNames, options: ClusterTurnOptions, ctx: OperationContext): Promise<ClusterTurn> {
  const report = emptyReport(options.dryRun, deps.clock.now());
  const listStorages = deps.seedListing === undefined || options.byHand === true || (await deps.seedListing.due(options.dryRun));
  let inventory: Inventory;
  try {
    inventory = await takeInventory(deps.provider, names.entries, names.generations, ctx, listStorages);
  } catch (err) {
    // Nothing of the cluster's is judged: an unanswered listing is never
    // "nothing is there" (that would re-create its VMs elsewhere, or free
    // what they hold).
    if (!options.skipUnlisted || ctx.signal.aborted) throw err;
    return { state: 'skipped', reason: `its listing failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (listStorages) await deps.seedListing?.listed(options.dryRun);
  if (names.elsewhere !== undefined) inventory.elsewhere = names.elsewhere;
  const plan = decide(inventory, deps.clock.now(), deps.settings.graceSeconds);
  report.listed = plan.listed;
  report.ours = plan.ours;
  report.seeds.listed = inventory.seeds.length;
  report.seeds.storagesListed = inventory.seedsListed;
  report.seeds.foundByListing = inventory.unrecordedSeeds.map(({ name, node, volid }) => ({ name, node, volid }));
  await act(plan, deps, report, ctx, options.dryRun);
  return { state: 'swept', report, inventory };
}
