// The one place that says which data each job takes (SPEC 1), for the
// producer library, the HTTP API and the worker alike (contract with the
// web process). The validator decides; jobJsonSchema documents.
import type { CheckJobData } from './check.schema.js';
import { checkFields } from './check.schema.js';
import type { CreateJobData, CreateJobInput } from './create.schema.js';
import { createInputFields, createStoredFields } from './create.schema.js';
import type { DeleteJobData, DeleteJobInput } from './delete.schema.js';
import { deleteInputFields, deleteStoredFields } from './delete.schema.js';
import { fieldsJsonSchema, validateFields } from './fields.js';
import type { JobFields, JobLimits, Validation } from './fields.js';
import type { HealthJobData, ReconcileJobData } from './system.schema.js';
import { healthFields, reconcileFields } from './system.schema.js';

export type { FieldError, JobLimits, Validation } from './fields.js';
export { limitsFromConfig } from './fields.js';
export type { CreateJobData, CreateJobInput } from './create.schema.js';
export type { DeleteJobData, DeleteJobInput } from './delete.schema.js';
export type { CheckJobData } from './check.schema.js';
export type { HealthJobData, ReconcileJobData } from './system.schema.js';

export const JOB_NAMES = ['create', 'delete', 'check', 'health', 'reconcile'] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** What a caller sends (no generation; create's uid optional). */
export interface JobInputs {
  create: CreateJobInput;
  delete: DeleteJobInput;
  check: CheckJobData;
  health: HealthJobData;
  reconcile: ReconcileJobData;
}

/** What a stored job carries (the producer added uid and generation). */
export interface JobDataOf {
  create: CreateJobData;
  delete: DeleteJobData;
  check: CheckJobData;
  health: HealthJobData;
  reconcile: ReconcileJobData;
}

const INPUT_FIELDS: Record<JobName, JobFields> = {
  create: createInputFields,
  delete: deleteInputFields,
  check: checkFields,
  health: healthFields,
  reconcile: reconcileFields,
};

const STORED_FIELDS: Record<JobName, JobFields> = {
  ...INPUT_FIELDS,
  create: createStoredFields,
  delete: deleteStoredFields,
};

export function isJobName(value: string): value is JobName {
  return (JOB_NAMES as readonly string[]).includes(value);
}

/** Checks a caller's data, listing every failing field; fills defaults. */
export function validateJobData<N extends JobName>(jobName: N, data: unknown, limits: JobLimits): Validation<JobInputs[N]> {
  return validateFields<JobInputs[N]>(INPUT_FIELDS[jobName], data, limits);
}

/** Checks a stored job's data in the worker (old jobs may carry old shapes). */
export function validateStoredJobData<N extends JobName>(jobName: N, data: unknown, limits: JobLimits): Validation<JobDataOf[N]> {
  return validateFields<JobDataOf[N]>(STORED_FIELDS[jobName], data, limits);
}

/** The caller's data of a job as a JSON Schema object (OpenAPI, route docs). */
export function jobJsonSchema(jobName: JobName, limits: JobLimits): Record<string, unknown> {
  return fieldsJsonSchema(INPUT_FIELDS[jobName], limits);
}
