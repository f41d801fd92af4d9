// The sweep's look at the tenants' quota holds (SPEC 34), pure: which holds
// have no VM and no present name, to free. A hold is kept by the rules
// that keep an address lease (decide-addresses.ts): its name present with
// its uid, a VM of ours (or an unreadable one) of its name with its uid
// or none known, or any VM whose name is not known yet.
import { heldInUse } from './decide-addresses.js';
import type { HeldView } from './decide-addresses.js';
import type { TenantHoldRef } from './report.js';

export interface HoldPlan {
  /** Holds with no VM and no present name. */
  orphanHolds: TenantHoldRef[];
}

export function planHolds(inventory: HeldView, holds: readonly TenantHoldRef[]): HoldPlan {
  const inUseNow = heldInUse(inventory);
  return { orphanHolds: holds.filter((hold) => !inUseNow(hold)) };
}
