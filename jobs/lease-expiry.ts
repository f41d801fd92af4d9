// lease-expiry (SPEC 31): a lease's timer at its expiresAt. It takes no
// name lock: like a caller's delete it only records an intent and adds its
// job (the lease's onExpiry, delete or stop), which then runs under the
// lock. A timer of an older lease version, or of a lease not due, does
// nothing; one a little early (clocks apart) waits for the time once.
import { setTimeout as sleep } from 'node:timers/promises';
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob } from './types.js';

/** A timer this much early waits for its time; earlier ones are left to the sweep's backstop. */
const EARLY_WAIT_MS = 10_000;

export const leaseExpiryJob = defineJob({
  name: 'lease-expiry',
  validate: (data, limits) => validateStoredJobData('lease-expiry', data, limits),
  async handler(data, deps, ctx) {
    let outcome = await deps.leases.expire(data.name, data.leaseVersion);
    if (outcome.kind === 'not-due' && outcome.dueInMs <= EARLY_WAIT_MS) {
      await sleep(outcome.dueInMs + 1, undefined, { signal: ctx.signal });
      outcome = await deps.leases.expire(data.name, data.leaseVersion);
    }
    if (outcome.kind === 'recorded' || outcome.kind === 'existing') {
      await ctx.log?.(`lease version ${data.leaseVersion} of ${data.name} expired at ${outcome.expiresAt}: ${outcome.action} job ${outcome.jobId}`);
      return { expired: true, action: outcome.action, jobId: outcome.jobId, expiresAt: outcome.expiresAt };
    }
    await ctx.log?.(`nothing to do for lease version ${data.leaseVersion} of ${data.name}: ${outcome.kind}`);
    return { expired: false, why: outcome.kind };
  },
});
