// pool-refill (SPEC 30): the warm pools' members created up to minIdle and
// the old, stale, surplus or unconfigured ones drained (src/pools/refill.ts).
// On the system queue, so one refill at a time across all workers (its
// global concurrency is 1); scheduled every 30 s and enqueued after each
// claim, behind callers' jobs.
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob } from './types.js';

export const poolRefillJob = defineJob({
  name: 'pool-refill',
  validate: (data, limits) => validateStoredJobData('pool-refill', data, limits),
  async handler(data, deps, ctx) {
    if (!deps.pools) {
      await ctx.log?.('no pools configured: nothing to refill');
      return { pools: [] };
    }
    return { pools: await deps.pools.refill(data.pool) };
  },
});
