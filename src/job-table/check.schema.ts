// The check job's data (SPEC 1): a name, nothing else; no generation,
// because a check changes nothing.
import { nameField, tenantField } from './fields.js';
import type { DataOf, FieldSpec } from './fields.js';

export const checkFields = { name: nameField } satisfies Record<string, FieldSpec>;

export type CheckJobData = DataOf<typeof checkFields>;

/** A stored check carries its name's tenant (SPEC 34), so its view reaches that tenant alone. */
export const checkStoredFields = { ...checkFields, tenant: tenantField } satisfies Record<string, FieldSpec>;

export type CheckStoredJobData = DataOf<typeof checkStoredFields>;
