// The job log's line for each tenant hold a job ended (SPEC 34), next to
// the address leases' (src/addresses/release-log.ts).
import type { OperationContext } from '../provider/types.js';
import type { HeldTenantHold } from './hold-store.js';

/** `1 VM, 2 cores, 2048 MiB, 20 GiB`: what a hold counted. */
export function holdSizes(hold: Pick<HeldTenantHold, 'vms' | 'cores' | 'memoryMiB' | 'diskGiB'>): string {
  return `${hold.vms} VM, ${hold.cores} cores, ${hold.memoryMiB} MiB, ${hold.diskGiB} GiB`;
}

export async function logReleasedHolds(ctx: Pick<OperationContext, 'log'>, released: readonly HeldTenantHold[]): Promise<void> {
  for (const one of released) await ctx.log?.(`released tenant hold of ${one.name} uid ${one.uid} (tenant ${one.tenant || 'unknown'}: ${holdSizes(one)})`);
}
