// The create job's two pool paths (SPEC 30): a caller's create the accept
// gave a claim takes the member's VM (the cold way when the VM is gone);
// a member's own create, ended, makes the member idle or drains it.
import type { CreateResult, CreateSpec, OperationContext } from '../provider/types.js';
import type { PoolJobDeps, OriginCreateResult } from './job-deps.js';
import type { PoolClaim } from './types.js';

type Log = OperationContext['log'];

/** The create job's other ways for a claim: the ordinary create, and the delete of a VM of the member's name and mark (the provider's). */
export interface ClaimWays {
  cold: () => Promise<CreateResult>;
  removeMemberVm: () => Promise<unknown>;
  /** Where the registry last saw the name's VM: the claim's check for another VM of the name reads it (a rename moments ago is not yet listed). */
  knownVmid?: number;
}

/**
 * The claimer's create: the claim renames the member's VM. A claim lost
 * (the VM gone or someone else's, or the keys too long) deletes any VM
 * still of the member's name and mark, is forgotten and goes the cold way,
 * `cold`, the ordinary create. A claim's member is forgotten as soon as
 * its VM is renamed (its VM is the claimer's from then on, whatever fails
 * after). Either way the pool is a member short: a refill of it is
 * enqueued.
 * A job of a later generation than the claim's (an in-place change of the
 * claimer, which keeps its claim) claims first, then makes the ordinary
 * create of the renamed VM, which finds it by name and uid and changes it.
 */
export async function createClaimed(spec: CreateSpec, claim: PoolClaim, pools: PoolJobDeps, ways: ClaimWays, ctx: OperationContext): Promise<OriginCreateResult> {
  const { cold, removeMemberVm, knownVmid } = ways;
  let result: CreateResult;
  let forgotten = false;
  // Forgotten as soon as the VM is renamed (SPEC 30): a claim failing after that (its keys) leaves no member claimed for ever.
  const renamed = async (): Promise<void> => {
    await pools.store.forgetClaimed(claim);
    forgotten = true;
  };
  try {
    result = await pools.claim(spec, claim, ctx, { renamed, ...(knownVmid === undefined ? {} : { knownVmid }) });
  } catch (err) {
    if (!pools.isClaimLost(err)) throw err;
    await ctx.log?.(`claim of ${claim.member} (VM ${claim.vmid} on ${claim.node}, pool ${claim.pool}) lost: ${err instanceof Error ? err.message : String(err)}; creating the VM the cold way`);
    pools.metrics?.poolMissed(claim.pool);
    // The member's VM may still be there (keys too long: nothing was touched; moved off claim.node): it goes
    // first, as a VM of the member's name and mark only, or it would keep running on the address the claimer now holds.
    await removeMemberVm();
    // Then its entry and record go too, or they would stay claimed for ever.
    await pools.store.forgetClaimed(claim);
    // The pool lost a member as a claim takes one: refilled now, not at the schedule's next run.
    await enqueueRefillOrLog(pools, claim.pool, ctx.log);
    return { ...(await cold()), origin: 'cold' };
  }
  // A claim that did not say when it renamed: forgotten now it is done.
  if (!forgotten) await pools.store.forgetClaimed(claim);
  // A later generation of the claiming uid (an in-place change, SPEC 2): the renamed VM is changed as any present name's is.
  if (claim.generation !== undefined && spec.generation !== undefined && spec.generation > claim.generation) {
    await ctx.log?.(`VM ${claim.vmid} claimed at generation ${claim.generation} is ${spec.name}'s; applying generation ${spec.generation}`);
    return { ...(await cold()), origin: 'pool' };
  }
  pools.metrics?.poolClaimed(claim.pool, Math.max(0, Date.now() - Date.parse(claim.claimedAt)) / 1000);
  await enqueueRefillOrLog(pools, claim.pool, ctx.log);
  return { ...result, origin: 'pool' };
}

/** The refill is a backstop every 30 s too: one not enqueued is logged, not a failed claim. */
async function enqueueRefillOrLog(pools: PoolJobDeps, pool: string, log: Log): Promise<void> {
  try {
    await pools.enqueueRefill(pool);
  } catch (err) {
    await log?.(`refill of pool ${pool} not enqueued (the schedule's will come): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * A member's create about to run (SPEC 30): the member's record and entry
 * say whether a claim has it already (a rerun after a SIGKILL between its
 * markIdle and its job's end): then the VM is the claimer's and the create
 * does nothing, neither a clone (after the rename its name is gone) nor a
 * drain. Answers why, or undefined: create it.
 */
export async function memberHandedOver(pool: string, spec: Pick<CreateSpec, 'name' | 'uid'>, pools: PoolJobDeps, log: Log): Promise<string | undefined> {
  const handed = await pools.store.handedOver({ pool, name: spec.name, uid: spec.uid });
  if (handed === undefined) return undefined;
  const why = `member ${spec.name} of pool ${pool} was ${handed === 'claimed' ? 'claimed' : 'claimed, renamed and forgotten'}: its VM is the claimer's, nothing to create`;
  await log?.(why);
  return why;
}

/**
 * A member's create ended: Running, the member is idle (claimable) when
 * the store agrees (its record present with its uid, unclaimed, its shape
 * current, not taken for a drain), with or without an address (the claim
 * reads one when the member had none). A member a claim took meanwhile is
 * the claimer's: left alone. Otherwise, or with no entry left, it is
 * drained (an ordinary delete).
 */
export async function settleMemberCreate(pool: string, spec: Pick<CreateSpec, 'name' | 'uid'>, result: CreateResult, pools: PoolJobDeps, log: Log): Promise<boolean> {
  const entry = (await pools.store.members(pool)).find((member) => member.name === spec.name && member.uid === spec.uid);
  const fingerprint = pools.fingerprintOf(pool);
  // Running is ready enough (SPEC 29 readiness was the create's to wait for): a member with no address yet is idle too, its claim reads the address.
  if (entry !== undefined && fingerprint !== undefined && result.state === 'Running') {
    const { idle: _idle, claimedBy: _claimedBy, unrecorded: _unrecorded, address: _was, ...member } = entry;
    const marked = await pools.store.markIdle({ ...member, vmid: result.vmid, node: result.node, ...(result.address === undefined ? {} : { address: result.address }) }, fingerprint);
    if (marked === 'idle') {
      await log?.(`member ${spec.name} of pool ${pool} is idle${result.address === undefined ? ' (no address yet: its claim reads it)' : ` at ${result.address}`}`);
      return true;
    }
    if (marked === 'handed-over') {
      await log?.(`member ${spec.name} of pool ${pool} was claimed meanwhile: left to its claimer`);
      return false;
    }
  } else if ((await memberHandedOver(pool, spec, pools, log)) !== undefined) return false;
  await log?.(`member ${spec.name} of pool ${pool} cannot be idle (${entry === undefined ? 'no entry' : fingerprint === undefined ? 'pool not configured' : result.state !== 'Running' ? `state ${result.state}` : 'superseded, of another shape or taken for a drain'}): draining it`);
  await pools.drain({ pool, name: spec.name, uid: spec.uid });
  return false;
}
