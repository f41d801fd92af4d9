// health (SPEC 19): every configured node checked; the result is kept for
// /readyz. Unhealthy nodes are a result, not a failure of the job.
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob } from './types.js';

export const healthJob = defineJob({
  name: 'health',
  validate: (data, limits) => validateStoredJobData('health', data, limits),
  async handler(_data, deps, ctx) {
    const nodes = await deps.provider.health(ctx);
    await deps.saveHealth(nodes);
    return { ok: nodes.every((node) => node.ok), nodes };
  },
});
