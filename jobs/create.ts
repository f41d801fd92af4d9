// create (SPEC 1, 13): the provider makes the VM, step by step, under the
// name's lock; every step is safe to repeat, so a retry resumes.
import { NameHeldByOtherUidError } from '../src/provider/name-held.js';
import type { CreateResult, CreateSpec } from '../src/provider/types.js';
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob, isOlderGeneration } from './types.js';
import type { JobContext, JobDeps } from './types.js';
import { logReleased } from '../src/addresses/release-log.js';
import { holdSizes, logReleasedHolds } from '../src/tenants/hold-log.js';
import type { CreateJobData } from '../src/job-table/create.schema.js';
import { createClaimed, memberHandedOver, settleMemberCreate } from '../src/pools/create-paths.js';
import { endUnrenamedClaim } from '../src/pools/claim-end.js';
import type { PoolClaim } from '../src/pools/types.js';

/**
 * SPEC 2: create, delete, create of one name leaves it present, also when
 * the second create has a new uid and the delete was superseded before it
 * ran. The old uid's VM then still holds the name; it is deleted here
 * only when the registry recorded that uid as this name's earlier one, so
 * a VM another installation (or lost Redis data) left is never touched.
 */
async function createReplacingRetired(spec: CreateSpec, deps: JobDeps, ctx: JobContext): Promise<CreateResult> {
  for (let replaced = 0; ; replaced += 1) {
    try {
      return await deps.provider.create(spec, ctx);
    } catch (err) {
      if (!(err instanceof NameHeldByOtherUidError) || replaced >= 3) throw err;
      const record = await deps.registry.get(spec.name);
      if (!record?.retiredUids?.includes(err.otherUid)) throw err;
      await ctx.log?.(`VM ${err.vmid} of ${spec.name} carries uid ${err.otherUid}, which this name no longer wants; deleting it first`);
      await deps.provider.delete({ name: spec.name, uid: err.otherUid }, ctx);
      await logReleased(ctx, await deps.addresses.vmGone(spec.name, err.otherUid));
      await logReleasedHolds(ctx, await deps.tenantHolds.vmGone(spec.name, err.otherUid));
    }
  }
}

/**
 * SPEC 29, 34: a create that failed Permanent and left no VM of its name
 * and uid gives its address lease and its tenant's quota hold back; one
 * that left a VM keeps them until a delete or the sweep ends that VM.
 * Asks Proxmox only when there is a lease, a claim or a hold. SPEC 30:
 * with no VM of its own, a claim it never renamed still has the member's
 * VM on that address: it goes first.
 */
async function releaseIfNothingLeft(name: string, uid: string, claim: PoolClaim | undefined, deps: JobDeps, ctx: JobContext): Promise<void> {
  const [lease, hold] = await Promise.all([deps.addresses.leaseOf(name, uid), deps.tenantHolds.holdOf(name, uid)]);
  if (lease === undefined && claim === undefined && hold === undefined) return;
  const seen = await deps.provider.get({ name, uid }, ctx);
  if (seen.state !== 'NotFound') {
    const left = `VM ${seen.vmid ?? ''} of ${name} is left (${seen.state})`;
    if (lease !== undefined) await ctx.log?.(`address ${lease.address} (pool ${lease.pool}) kept: ${left}`);
    if (hold !== undefined) await ctx.log?.(`tenant hold of ${name} uid ${uid} (tenant ${hold.tenant}: ${holdSizes(hold)}) kept: ${left}`);
    return;
  }
  if (claim !== undefined) await endUnrenamedClaim(claim, { provider: deps.provider, registry: deps.registry, store: deps.pools?.store }, ctx);
  if (lease !== undefined) {
    const released = await deps.addresses.createFailed(name, uid);
    await logReleased(ctx, released === undefined ? [] : [released]);
  }
  if (hold !== undefined) {
    const released = await deps.tenantHolds.createFailed(name, uid);
    await logReleasedHolds(ctx, released === undefined ? [] : [released]);
  }
}

export const createJob = defineJob({
  name: 'create',
  validate: (data, limits) => validateStoredJobData('create', data, limits),
  lockedName: (data) => data.name,
  superseded: (data, record) => isOlderGeneration(data.generation, record),
  recordsPermanentFailure: true,
  async afterPermanentFailure(data, deps, ctx) {
    await releaseIfNothingLeft(data.name, data.uid, data.claim, deps, ctx);
    // A member that cannot be made: its name goes (any VM it left with it) and the refill makes another (SPEC 30).
    if (data.poolMember !== undefined && deps.pools) await deps.pools.drain({ pool: data.poolMember, name: data.name, uid: data.uid });
  },
  async handler(data: CreateJobData, deps, ctx) {
    // The generation goes along: a phone-home token records it (SPEC 29).
    // A member's create keeps poolMember: the provider tags its VM and seeds its user's ~/.ssh (SPEC 30).
    // The tenant is the job's (SPEC 34), not the VM's: no field of its spec.
    const { step: _step, claim, tenant: _tenant, ...spec } = data;
    const { poolMember } = spec;
    const cold = () => createReplacingRetired(spec, deps, ctx);
    const pools = deps.pools;
    // A rerun of a member's create whose member a claim took: the VM is the claimer's; no clone, no drain (SPEC 30).
    if (poolMember !== undefined && pools && (await memberHandedOver(poolMember, spec, pools, ctx.log)) !== undefined) {
      // The moot job's result, as a superseded one's (src/worker/name-claim.ts SupersededResult).
      return { superseded: true, generation: data.generation, currentGeneration: data.generation };
    }
    let result: CreateResult;
    // SPEC 30: with pools configured, the result says where the VM came from.
    if (claim !== undefined && pools) {
      // A lost claim's member VM, wherever it still runs, goes by its name and mark before the cold way (SPEC 30).
      const removeMemberVm = () => deps.provider.delete({ name: claim.member, uid: claim.memberUid }, ctx);
      const knownVmid = (await deps.registry.get(spec.name))?.lastKnown?.vmid;
      result = await createClaimed(spec, claim, pools, { cold, removeMemberVm, ...(knownVmid === undefined ? {} : { knownVmid }) }, ctx);
    }
    else if (pools?.configured) result = { ...(await cold()), origin: 'cold' };
    else result = await cold();
    if (poolMember !== undefined && pools) await settleMemberCreate(poolMember, spec, result, pools, ctx.log);
    // SPEC 34: an in-place change held the larger sizes until its VM had the new ones.
    else await deps.tenantHolds.settle(spec.name, spec.uid, data.generation, { cores: spec.cores, memoryMiB: spec.memoryMiB, diskGiB: spec.diskGiB });
    const lastKnown = { state: result.state, vmid: result.vmid, node: result.node, at: new Date().toISOString() };
    ctx.setLastKnown(data.name, result.address === undefined ? lastKnown : { ...lastKnown, address: result.address });
    return result;
  },
});
