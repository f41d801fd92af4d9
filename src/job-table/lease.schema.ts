// The data of a lease's jobs (SPEC 31): the timers (lease-expiry at the
// lease's end, lease-warning leases.warnSeconds before it), and the stop
// an expiry may run. Only the service adds them: no caller sends these.
import { generationField, nameField, tenantField, uidField } from './fields.js';
import type { DataOf, FieldSpec } from './fields.js';

/** RFC 3339 in UTC with milliseconds, as Date.toISOString writes it. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

const leaseVersionField = {
  presence: 'required',
  rule: { kind: 'integer', description: "The lease's version (1 for the create's, one more per renewal)", min: 1, max: Number.MAX_SAFE_INTEGER },
} satisfies FieldSpec;

/** A timer of one lease version of one generation of the name. */
export const leaseTimerFields = { name: nameField, generation: generationField, leaseVersion: leaseVersionField } satisfies Record<string, FieldSpec>;
export type LeaseTimerJobData = DataOf<typeof leaseTimerFields>;

/**
 * Carried by the delete or stop a lease's expiry added (never by a
 * caller's): the expiresAt that fired it, for vm.expired and the lag
 * from expiry to the VM's end.
 */
export const expiryFields = {
  expiredAt: {
    presence: 'optional',
    rule: { kind: 'string', description: 'The expiresAt of the lease whose expiry added this job (SPEC 31)', maxBytes: 32, pattern: ISO_TIME, patternText: 'an RFC 3339 time in UTC' },
  },
  leaseVersion: { ...leaseVersionField, presence: 'optional' },
} satisfies Record<string, FieldSpec>;

/** The stop at a lease's expiry (SPEC 31): the VM of this name and uid is stopped and stays recorded. */
export const stopFields = { name: nameField, uid: { ...uidField, presence: 'required' }, generation: generationField, tenant: tenantField, ...expiryFields } satisfies Record<string, FieldSpec>;
export type StopJobData = DataOf<typeof stopFields>;
