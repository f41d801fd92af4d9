// The data of the system jobs (SPEC 1): health takes none, reconcile an
// optional dryRun.
import type { JobFields } from './fields.js';

export type HealthJobData = Record<string, never>;

export interface ReconcileJobData {
  dryRun: boolean;
}

export const healthFields: JobFields = {};

export const reconcileFields: JobFields = {
  dryRun: {
    required: true,
    default: () => false,
    rule: { kind: 'boolean', description: 'Report what a sweep would do and change nothing' },
  },
};
