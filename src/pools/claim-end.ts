// A claim its create never renamed (SPEC 29, 30): the claimer's name was
// deleted, or its create failed for good, before the rename. The member's
// VM then still runs, under the member's name and mark, on the address the
// claim moved to the claimer; releasing that address would let the door
// hand it to another VM while this one still answers on it. So the VM goes
// first, found only under the member's name and uid (the provider's delete
// touches no VM with another name or mark: one the claim renamed is the
// claimer's, deleted as such), and the member is forgotten with it.
import type { DesiredRecord } from '../desired-state.js';
import { NotFoundError } from '../errors.js';
import type { OperationContext, Provider } from '../provider/types.js';
import type { PoolClaim, PoolStore } from './types.js';

export interface ClaimEndDeps {
  provider: Pick<Provider, 'delete'>;
  registry: { get(name: string): Promise<DesiredRecord | undefined> };
  /** The pools' store; absent on a worker without one (then only the VM goes). */
  store: Pick<PoolStore, 'forgetClaimed'> | undefined;
}

/** Deletes the claimed member's VM if it still carries the member's name and mark, then forgets the member; call it before the claimer's address is released. */
export async function endUnrenamedClaim(claim: PoolClaim, deps: ClaimEndDeps, ctx: OperationContext): Promise<void> {
  // Forgotten (its record gone): the claim renamed it, or found it gone. No Proxmox call then.
  if ((await deps.registry.get(claim.member))?.uid !== claim.memberUid) return;
  try {
    const deleted = await deps.provider.delete({ name: claim.member, uid: claim.memberUid, knownVmid: claim.vmid }, ctx);
    if (deleted.deleted) await ctx.log?.(`claimed member ${claim.member} (VM ${deleted.vmid ?? claim.vmid}) was never renamed: deleted before its address goes`);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  await deps.store?.forgetClaimed(claim);
}
