// The tenants' quota holds (SPEC 34, SPEC 5 step 3): the sweep frees the
// holds with no VM and no present name itself (a Redis write, no Proxmox
// call), as it frees address leases (act-addresses.ts), leaving to a
// pending job or the name's lock holder what is theirs to end. The
// freeing script checks the name again: a create of the same name and uid
// recorded since keeps its hold.
import type { OperationContext } from '../provider/types.js';
import type { Notes } from './act-seeds.js';
import type { HoldPlan } from './decide-holds.js';
import type { SweepDeps, TenantHoldBook } from './ports.js';
import type { SweepReport } from './report.js';

export async function actOnHolds(plan: HoldPlan, book: TenantHoldBook, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  for (const hold of plan.orphanHolds) {
    ctx.signal.throwIfAborted();
    const what = `tenant hold of ${hold.name} uid ${hold.uid} (tenant ${hold.tenant})`;
    try {
      if ((await deps.locks.isHeld(hold.name)) || (await deps.jobs.hasPendingJob(hold.name))) {
        report.tenantHolds.pending.push(hold);
        notes.note('tenant_hold_pending', `left to the name's pending or running job: ${what}, no VM and no present name`);
        continue;
      }
      if (!dryRun && (await book.free(hold.name, hold.uid)) === undefined) continue; // claimed or gone since the sweep read it
      report.tenantHolds.freed.push(hold);
      notes.note('tenant_hold_freed', `${dryRun ? 'would free' : 'freed'} ${what}: no VM of ours carries it and the name is not present with it`);
    } catch (err) {
      notes.failed('free-hold', hold.name, err);
    }
  }
}
