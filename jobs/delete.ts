// delete (SPEC 1, 15): under the name's lock; a VM already gone is done
// (SPEC 4: NotFound on delete means success). Its VM gone, the address
// lease of its uid ends (SPEC 29), and its tenant's quota hold (SPEC 34);
// first, a warm pool member its uid claimed and never renamed goes too
// (SPEC 30), as it uses that address.
import { NotFoundError } from '../src/errors.js';
import { logReleased } from '../src/addresses/release-log.js';
import { logReleasedHolds } from '../src/tenants/hold-log.js';
import { endUnrenamedClaim } from '../src/pools/claim-end.js';
import type { DeleteRequest, DeleteResult } from '../src/provider/types.js';
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob, isOlderGeneration } from './types.js';

export const deleteJob = defineJob({
  name: 'delete',
  validate: (data, limits) => validateStoredJobData('delete', data, limits),
  lockedName: (data) => data.name,
  // A delete naming a uid the name is not desired with only removes that
  // uid's VM (an orphan), so no newer intent makes it moot.
  superseded: (data, record) =>
    isOlderGeneration(data.generation, record) && !(data.uid !== undefined && record?.state === 'present' && record.uid !== data.uid),
  async handler(data, deps, ctx) {
    let result: DeleteResult;
    // SPEC 28: where the registry last saw the name's VM, read even if the listing shows another name there.
    const record = await deps.registry.get(data.name);
    const knownVmid = record?.lastKnown?.vmid;
    const request: DeleteRequest = { name: data.name, ...(data.uid !== undefined ? { uid: data.uid } : {}), ...(knownVmid !== undefined ? { knownVmid } : {}) };
    try {
      result = await deps.provider.delete(request, ctx);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await ctx.log?.(`nothing to delete: ${err.reason}`);
      result = { deleted: false, seedsDeleted: 0 };
    }
    // SPEC 29, 30: a claim the deleted uid's create never renamed leaves the member's VM on the address below.
    const claim = record?.state === 'absent' && (data.uid === undefined || data.uid === record.uid) ? record.claim : undefined;
    if (claim !== undefined) await endUnrenamedClaim(claim, { provider: deps.provider, registry: deps.registry, store: deps.pools?.store }, ctx);
    // A release that fails fails the attempt: the retry finds the VM gone and releases again.
    await logReleased(ctx, await deps.addresses.vmGone(data.name, data.uid));
    // SPEC 34: the tenant's quota hold of that VM ends with it, as its lease does.
    await logReleasedHolds(ctx, await deps.tenantHolds.vmGone(data.name, data.uid));
    // Only while the name is still desired absent: a newer create's VM is not this delete's to report.
    ctx.setLastKnown(data.name, { state: 'NotFound', at: new Date().toISOString() }, 'absent');
    return result;
  },
});
