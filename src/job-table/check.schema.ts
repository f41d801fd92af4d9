// The check job's data (SPEC 1): a name, nothing else; no generation,
// because a check changes nothing.
import { nameField } from './fields.js';
import type { DataOf, FieldSpec } from './fields.js';

export const checkFields = { name: nameField } satisfies Record<string, FieldSpec>;

export type CheckJobData = DataOf<typeof checkFields>;
