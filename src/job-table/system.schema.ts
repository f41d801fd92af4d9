// The data of the system jobs (SPEC 1): health takes none, reconcile an
// optional dryRun.
import type { DataOf, FieldSpec } from './fields.js';

export type HealthJobData = Record<string, never>;

export const healthFields = {} satisfies Record<string, FieldSpec>;

export const reconcileFields = {
  dryRun: {
    presence: 'defaulted',
    default: () => false,
    rule: { kind: 'boolean', description: 'Report what a sweep would do and change nothing' },
  },
} satisfies Record<string, FieldSpec>;

export type ReconcileJobData = DataOf<typeof reconcileFields>;
