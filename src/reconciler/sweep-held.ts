// The address leases (SPEC 29) and the tenants' holds (SPEC 34) of a sweep,
// once every cluster has had its turn (SPEC 32). Each is judged in its
// name's cluster's sweep: the cluster the name's present record names, the
// first for a name not present (a tombstone keeps no spec, so it names
// none). It is kept while a VM listed on any cluster carries it, and one
// whose name is not present is left alone while some cluster could not be
// listed: its VM may be there.
import { actOnHeld } from './act.js';
import { planAddresses } from './decide-addresses.js';
import type { HeldView } from './decide-addresses.js';
import { planHolds } from './decide-holds.js';
import type { Inventory } from './inventory.js';
import { shareOf } from './cluster-share.js';
import type { ClusterShare } from './cluster-share.js';
import type { OperationContext } from '../provider/types.js';
import type { DesiredEntry, LeasedAddress, SweepDeps } from './ports.js';
import type { SweepReport, TenantHoldRef } from './report.js';

/** A cluster whose turn listed it. */
export interface SweptCluster {
  share: ClusterShare;
  deps: SweepDeps;
  ctx: OperationContext;
  report: SweepReport;
  inventory: Inventory;
}

export interface HeldStock {
  /** Read before the registry (sweep.ts); undefined without the book. */
  leases?: LeasedAddress[];
  holds?: TenantHoldRef[];
  /** Every entry the registry had, each cluster's. */
  entries: ReadonlyMap<string, DesiredEntry>;
}

export async function sweepHeld(swept: readonly SweptCluster[], shares: readonly ClusterShare[], stock: HeldStock, skipped: readonly string[], dryRun: boolean, log?: (line: string) => void): Promise<void> {
  const keptBy: HeldView = { vms: swept.flatMap(({ inventory }) => inventory.vms), entries: new Map(stock.entries) };
  const present = (name: string): boolean => stock.entries.get(name)?.state === 'present';
  const whose = (name: string): string | undefined => {
    const entry = stock.entries.get(name);
    return entry === undefined ? shares[0]?.name : shareOf(entry, shares)?.name;
  };
  if (skipped.length > 0) {
    const waiting = [...(stock.leases ?? []), ...(stock.holds ?? [])].filter((held) => !present(held.name)).length;
    if (waiting > 0) log?.(`not judged this sweep: ${waiting} address leases and tenant holds of names not present, as a VM on cluster ${skipped.join(', ')} (not listed) may carry them`);
  }
  for (const { share, deps, ctx, report, inventory } of swept) {
    const judged = (held: { name: string }): boolean => whose(held.name) === share.name && (skipped.length === 0 || present(held.name));
    const book = deps.addresses;
    const plan = {
      ...(stock.leases && book ? { addresses: planAddresses(inventory, stock.leases.filter(judged), (address) => book.poolOf(address), keptBy) } : {}),
      ...(stock.holds ? { tenantHolds: planHolds(keptBy, stock.holds.filter(judged)) } : {}),
    };
    await actOnHeld(plan, deps, report, ctx, dryRun);
  }
}
