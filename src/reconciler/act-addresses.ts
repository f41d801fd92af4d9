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
import type { SweepReport } from './report.js';

export async function actOnAddresses(plan: AddressPlan, book: AddressLeaseBook, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  for (const lease of plan.orphanLeases) {
    ctx.signal.throwIfAborted();
    const what = `address ${lease.address} (pool ${lease.pool}) of ${lease.name} uid ${lease.uid}`;
    try {
      if ((await deps.locks.isHeld(lease.name)) || (await deps.jobs.hasPendingJob(lease.name))) {
        report.addresses.pending.push(lease);
        notes.note('address_lease_pending', `left to the name's pending or running job: ${what}, no VM and no present name`);
        continue;
      }
      if (!dryRun && (await book.free(lease.name, lease.uid)) === undefined) continue; // claimed or gone since the sweep read it
      report.addresses.freed.push(lease);
      notes.note('address_lease_freed', `${dryRun ? 'would free' : 'freed'} ${what}: no VM of ours carries it and the name is not present with it`);
    } catch (err) {
      notes.failed('free-address', lease.name, err);
    }
  }
  for (const seen of plan.unleased) {
    ctx.signal.throwIfAborted();
    if (await book.holds(seen.name, seen.uid, seen.address)) continue;
    report.addresses.unleased.push(seen);
    notes.note('address_unleased', `VM ${seen.vmid} (${seen.name}) on ${seen.node} has address ${seen.address} in pool ${seen.pool}, which no lease holds`);
    deps.onUnleasedAddress?.(seen);
  }
}
