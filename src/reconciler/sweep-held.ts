// The address leases (SPEC 29) and the tenants' holds (SPEC 34) of a sweep,
// once every cluster has had its turn (SPEC 32). Each is judged in its
// name's cluster's sweep: the cluster the name's present record names, the
// first for a name not present (a tombstone keeps no spec, so it names
// none). It is kept while a VM listed on any cluster carries it, and one
// whose name is not present with its uid is left alone while some cluster
// could not be listed: its VM may be there (a name deleted there and
// created again elsewhere keeps the old uid's VM in the old cluster).
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
  // Present with this uid (or claiming every uid): in use whatever the listings say.
  const presentWith = (held: { name: string; uid: string }): boolean => {
    const entry = stock.entries.get(held.name);
    return entry?.state === 'present' && (entry.uid === undefined || entry.uid === held.uid);
  };
  const whose = (name: string): string | undefined => {
    const entry = stock.entries.get(name);
    return entry === undefined ? shares[0]?.name : shareOf(entry, shares)?.name;
  };
  if (skipped.length > 0) {
    const sweptNames = new Set(swept.map(({ share }) => share.name));
    const waiting = [...(stock.leases ?? []), ...(stock.holds ?? [])].filter((held) => sweptNames.has(whose(held.name) ?? '') && !presentWith(held)).length;
    if (waiting > 0) log?.(`not judged this sweep: ${waiting} address leases and tenant holds of names not present with their uid, as a VM on cluster ${skipped.join(', ')} (not listed) may carry them`);
  }
  for (const { share, deps, ctx, report, inventory } of swept) {
    const judged = (held: { name: string; uid: string }): boolean => whose(held.name) === share.name && (skipped.length === 0 || presentWith(held));
    const book = deps.addresses;
    const plan = {
      ...(stock.leases && book ? { addresses: planAddresses(inventory, stock.leases.filter(judged), (address) => book.poolOf(address), keptBy) } : {}),
      ...(stock.holds ? { tenantHolds: planHolds(keptBy, stock.holds.filter(judged)) } : {}),
    };
    await actOnHeld(plan, deps, report, ctx, dryRun);
  }
}
