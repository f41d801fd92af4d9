// The registered jobs. Start-up fails when an expected job name has no
// handler or two, so a job can never sit in a queue nobody serves.
import { checkJob } from './check.js';
import { createJob } from './create.js';
import { deleteJob } from './delete.js';
import { healthJob } from './health.js';
import { leaseExpiryJob } from './lease-expiry.js';
import { leaseWarningJob } from './lease-warning.js';
import { stopJob } from './stop.js';
import { reconcileJob } from './reconcile.js';
import { poolRefillJob } from './pool-refill.js';
import { JOB_NAMES } from '../src/job-table/schema.js';
import type { JobName } from '../src/job-table/schema.js';
import type { AnyJobDefinition } from './types.js';

export const jobDefinitions: readonly AnyJobDefinition[] = [createJob, deleteJob, checkJob, healthJob, reconcileJob, stopJob, leaseExpiryJob, leaseWarningJob, poolRefillJob];

export class JobRegistryError extends Error {
  override readonly name = 'JobRegistryError';
}

/** One handler per expected job name, or an error naming what is wrong. */
export function buildJobRegistry(
  definitions: readonly AnyJobDefinition[] = jobDefinitions,
  expected: readonly JobName[] = JOB_NAMES,
): ReadonlyMap<JobName, AnyJobDefinition> {
  const byName = new Map<JobName, AnyJobDefinition>();
  for (const definition of definitions) {
    if (byName.has(definition.name)) throw new JobRegistryError(`job "${definition.name}" has two handlers`);
    byName.set(definition.name, definition);
  }
  const missing = expected.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new JobRegistryError(`no handler for job ${missing.map((n) => `"${n}"`).join(', ')}`);
  return byName;
}
