// lease-warning (SPEC 31): leases.warnSeconds before a lease ends, the
// `vm.expiring` webhook, once per lease version (the lease's warnedAt).
// No name lock: it changes no VM.
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob } from './types.js';

export const leaseWarningJob = defineJob({
  name: 'lease-warning',
  validate: (data, limits) => validateStoredJobData('lease-warning', data, limits),
  async handler(data, deps, ctx) {
    const warned = await deps.leases.warn(data.name, data.leaseVersion, ctx.jobId);
    await ctx.log?.(warned.warned ? `vm.expiring sent: lease version ${data.leaseVersion} of ${data.name} ends at ${warned.expiresAt}` : `no warning: lease version ${data.leaseVersion} of ${data.name} is not current, or was warned`);
    return warned;
  },
});
