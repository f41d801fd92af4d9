// The delete job's data (SPEC 1): with a uid, only the VM whose mark
// carries it is touched (SPEC 15).
import { generationField, nameField, uidField } from './fields.js';
import type { JobFields } from './fields.js';

export interface DeleteJobInput {
  name: string;
  uid?: string;
}

export interface DeleteJobData extends DeleteJobInput {
  generation: number;
}

export const deleteInputFields: JobFields = { name: nameField, uid: uidField };

export const deleteStoredFields: JobFields = { ...deleteInputFields, generation: generationField };
