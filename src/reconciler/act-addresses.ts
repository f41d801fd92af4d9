// The address pools (SPEC 29, SPEC 5 step 3): the sweep frees the leases
// with no VM and no present name itself (a Redis write, no Proxmox call),
// leaving to a pending job or the name's lock holder what is theirs to
// end; and reports each address seen on a VM of ours that no lease holds,
// read again first, as a lease may have been taken since the sweep read
// them. The freeing script checks the name again: a create of the same
// name and uid recorded since keeps its lease.
import type { OperationContext } from '../provider/types.js';
import type { Notes } from './act-seeds.js';
import type { AddressPlan } from './decide-addresses.js';
import type { AddressLeaseBook, SweepDeps } from './ports.js';
import { freeOrphans } from './free-orphans.js';
import type { SweepReport } from './report.js';

export async function actOnAddresses(plan: AddressPlan, book: AddressLeaseBook, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  const orphans = {
    describe: (lease: (typeof plan.orphanLeases)[number]) => `address ${lease.address} (pool ${lease.pool}) of ${lease.name} uid ${lease.uid}`,
    free: (name: string, uid: string) => book.free(name, uid),
    pending: report.addresses.pending,
    freed: report.addresses.freed,
    pendingKind: 'address_lease_pending',
    freedKind: 'address_lease_freed',
    failedAction: 'free-address',
  } as const;
  await freeOrphans(plan.orphanLeases, orphans, deps, ctx, notes, dryRun);
  for (const seen of plan.unleased) {
    ctx.signal.throwIfAborted();
    if (await book.holds(seen.name, seen.uid, seen.address)) continue;
    report.addresses.unleased.push(seen);
    notes.note('address_unleased', `VM ${seen.vmid} (${seen.name}) on ${seen.node} has address ${seen.address} in pool ${seen.pool}, which no lease holds`);
    deps.onUnleasedAddress?.(seen);
  }
}
