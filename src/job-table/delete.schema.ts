// The delete job's data (SPEC 1): with a uid, only the VM whose mark
// carries it is touched (SPEC 15).
import { generationField, nameField, tenantField, uidField } from './fields.js';
import type { DataOf, FieldSpec } from './fields.js';
import { expiryFields } from './lease.schema.js';

export const deleteInputFields = { name: nameField, uid: uidField } satisfies Record<string, FieldSpec>;

// A lease's expiry (SPEC 31) adds its delete with the lease's expiresAt; a caller's has none.
export const deleteStoredFields = { ...deleteInputFields, generation: generationField, tenant: tenantField, ...expiryFields } satisfies Record<string, FieldSpec>;

export type DeleteJobInput = DataOf<typeof deleteInputFields>;
export type DeleteJobData = DataOf<typeof deleteStoredFields>;
