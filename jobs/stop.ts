// stop (SPEC 31): a lease's expiry with onExpiry `stop`, recorded as an
// intent like a delete (the expiry's script), so a newer create or delete
// supersedes it. Under the name's lock, the VM of the name and uid is
// stopped and stays recorded, its last-known state Stopped; a create of
// the same spec starts it again. Internal: no caller enqueues it.
import { NotFoundError } from '../src/errors.js';
import type { StopResult } from '../src/provider/types.js';
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob, isOlderGeneration } from './types.js';

export const stopJob = defineJob({
  name: 'stop',
  validate: (data, limits) => validateStoredJobData('stop', data, limits),
  lockedName: (data) => data.name,
  superseded: (data, record) => isOlderGeneration(data.generation, record),
  async handler(data, deps, ctx) {
    const knownVmid = (await deps.registry.get(data.name))?.lastKnown?.vmid;
    let result: StopResult;
    try {
      result = await deps.provider.stop({ name: data.name, uid: data.uid, ...(knownVmid !== undefined ? { knownVmid } : {}) }, ctx);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      await ctx.log?.(`nothing to stop: ${err.reason}`);
      result = { stopped: false };
    }
    const at = new Date().toISOString();
    const where = { ...(result.vmid !== undefined ? { vmid: result.vmid } : {}), ...(result.node !== undefined ? { node: result.node } : {}) };
    // Only while the name is still desired present: a newer delete's NotFound is not this stop's to overwrite.
    ctx.setLastKnown(data.name, { state: result.vmid === undefined ? 'NotFound' : 'Stopped', ...where, at }, 'present');
    return result;
  },
});
