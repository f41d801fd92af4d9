// The job log's line for each address lease a job ended (SPEC 29).
import type { OperationContext } from '../provider/types.js';
import type { ReleasedAddress } from './address-pool-store.js';

export async function logReleased(ctx: Pick<OperationContext, 'log'>, released: readonly ReleasedAddress[]): Promise<void> {
  for (const one of released) {
    const rest = one.restsUntilMs === undefined ? 'another holder has it now' : `handed out again from ${new Date(one.restsUntilMs).toISOString()}`;
    await ctx.log?.(`released address ${one.address} (pool ${one.pool}) of ${one.name} uid ${one.uid}: ${rest}`);
  }
}
