// The tenants' quota holds (SPEC 34, SPEC 5 step 3): the sweep frees the
// holds with no VM and no present name as it frees address leases
// (free-orphans.ts).
import type { OperationContext } from '../provider/types.js';
import type { Notes } from './act-seeds.js';
import type { HoldPlan } from './decide-holds.js';
import { freeOrphans } from './free-orphans.js';
import type { SweepDeps, TenantHoldBook } from './ports.js';
import type { SweepReport } from './report.js';

export async function actOnHolds(plan: HoldPlan, book: TenantHoldBook, deps: SweepDeps, report: SweepReport, ctx: OperationContext, notes: Notes, dryRun: boolean): Promise<void> {
  await freeOrphans(
    plan.orphanHolds,
    {
      describe: (hold) => `tenant hold of ${hold.name} uid ${hold.uid} (tenant ${hold.tenant})`,
      free: (name, uid) => book.free(name, uid),
      pending: report.tenantHolds.pending,
      freed: report.tenantHolds.freed,
      pendingKind: 'tenant_hold_pending',
      freedKind: 'tenant_hold_freed',
      failedAction: 'free-hold',
    },
    deps,
    ctx,
    notes,
    dryRun,
  );
}
