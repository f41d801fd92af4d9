// The check job's data (SPEC 1): a name, nothing else; no generation,
// because a check changes nothing.
import { nameField } from './fields.js';
import type { JobFields } from './fields.js';

export interface CheckJobData {
  name: string;
}

export const checkFields: JobFields = { name: nameField };
