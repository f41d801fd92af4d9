// The data of the system jobs (SPEC 1): health takes none, reconcile an
// optional dryRun, pool-refill an optional pool (SPEC 30).
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

export const poolRefillFields = {
  pool: {
    presence: 'optional',
    rule: { kind: 'string', description: 'The one warm pool to refill (SPEC 30); every configured pool, and every pool with members but no config, when absent', maxBytes: 20, pattern: /^[a-z][a-z0-9-]{0,19}$/, patternText: 'a pool name (a letter, then up to 19 of a-z 0-9 -)' },
  },
} satisfies Record<string, FieldSpec>;

export type PoolRefillJobData = DataOf<typeof poolRefillFields>;
