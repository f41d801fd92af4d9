// reconcile (SPEC 5): the sweep itself lives in src/reconciler; the worker
// builds it from its registry, locks and vm queue and passes it in deps.
// One sweep at a time: the system queue's global concurrency is 1, and
// the sweep takes its own lock as well.
import { validateStoredJobData } from '../src/job-table/schema.js';
import { defineJob } from './types.js';

export const reconcileJob = defineJob({
  name: 'reconcile',
  validate: (data, limits) => validateStoredJobData('reconcile', data, limits),
  handler: (data, deps, ctx) => deps.reconcile(data, ctx),
});
