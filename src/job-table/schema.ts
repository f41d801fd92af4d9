// The one place that says which jobs there are (SPEC 1), their queue, the
// data each takes and the shape of its id, for the producer library, the
// HTTP API, the CLI and the worker alike. The validator decides;
// jobJsonSchema documents. Producer-safe: no handler is imported here.
import type { CheckStoredJobData } from './check.schema.js';
import { checkFields, checkStoredFields } from './check.schema.js';
import type { CreateJobData, CreateJobInput } from './create.schema.js';
import { createInputFields, createStoredFields } from './create.schema.js';
import type { DeleteJobData, DeleteJobInput } from './delete.schema.js';
import { deleteInputFields, deleteStoredFields } from './delete.schema.js';
import { fieldsJsonSchema, validateFields } from './fields.js';
import type { InputOf, JobFields, JobLimits, Validation } from './fields.js';
import type { LeaseTimerJobData, StopJobData } from './lease.schema.js';
import { leaseTimerFields, stopFields } from './lease.schema.js';
import type { HealthJobData, PoolRefillJobData, ReconcileJobData } from './system.schema.js';
import { healthFields, poolRefillFields, reconcileFields } from './system.schema.js';

export type { FieldError, JobLimits, Validation } from './fields.js';
export { limitsFromConfig } from './fields.js';
export type { PoolRefillJobData, ReconcileJobData } from './system.schema.js';

/** The queues (SPEC 1, 5, 30, 31): VM jobs; the system jobs (health, the sweep, the pools' refill), run one at a time across all workers; a lease's timers, delayed until their time. */
export type QueueName = 'vm' | 'system' | 'leases';

/**
 * Where a job's id comes from (src/job-table/job-ids.ts): `intent`, the registry
 * records the request as the name's desired state and names its job
 * (SPEC 2); `per-name`, each request for a name is a job of its own; `system`,
 * a job of no name, on a schedule or added by hand; `internal`, an intent
 * the service records itself (a lease's stop, SPEC 31), which no caller
 * enqueues; `lease`, a lease's timer, one per name, generation and lease
 * version (SPEC 31).
 */
type JobIdentity = 'intent' | 'per-name' | 'system' | 'internal' | 'lease';

interface JobEntry {
  queue: QueueName;
  /** What a caller sends (the producer, the HTTP API, the CLI's flags). */
  input: JobFields;
  /** What the stored job carries, checked again in the worker. */
  stored: JobFields;
  ids: JobIdentity;
  /** What the job does, for the OpenAPI document and the CLI's usage: `a check of the VM's state`. */
  summary: string;
}

/**
 * The job table (SPEC 1): each job's queue, data and id shape. The
 * producer's door (src/queue/enqueue.ts), the HTTP API and its OpenAPI
 * document, the CLI and the worker follow from it. Handlers are
 * registered apart (jobs/index.ts), so the producer never imports them.
 */
export const JOB_TABLE = {
  create: { queue: 'vm', input: createInputFields, stored: createStoredFields, ids: 'intent', summary: 'a create of a VM' },
  delete: { queue: 'vm', input: deleteInputFields, stored: deleteStoredFields, ids: 'intent', summary: 'a delete of a VM' },
  check: { queue: 'vm', input: checkFields, stored: checkStoredFields, ids: 'per-name', summary: "a check of the VM's state" },
  health: { queue: 'system', input: healthFields, stored: healthFields, ids: 'system', summary: 'a health check of every configured node' },
  reconcile: { queue: 'system', input: reconcileFields, stored: reconcileFields, ids: 'system', summary: 'a reconcile sweep' },
  stop: { queue: 'vm', input: stopFields, stored: stopFields, ids: 'internal', summary: "a stop of a VM at its lease's expiry" },
  'lease-expiry': { queue: 'leases', input: leaseTimerFields, stored: leaseTimerFields, ids: 'lease', summary: "a lease's expiry" },
  'lease-warning': { queue: 'leases', input: leaseTimerFields, stored: leaseTimerFields, ids: 'lease', summary: "a lease's vm.expiring warning" },
  'pool-refill': { queue: 'system', input: poolRefillFields, stored: poolRefillFields, ids: 'system', summary: "a warm pools' refill: members created up to minIdle, old and surplus ones drained" },
} as const satisfies Record<string, JobEntry>;

export type JobName = keyof typeof JOB_TABLE;
export const JOB_NAMES = Object.keys(JOB_TABLE) as readonly JobName[];

type JobsWhose<K extends keyof JobEntry, V> = { [N in JobName]: (typeof JOB_TABLE)[N][K] extends V ? N : never }[JobName];
/** The jobs the registry records as intents (SPEC 2): create, delete. */
export type IntentJob = JobsWhose<'ids', 'intent'>;
/** Every job of a recorded intent (SPEC 2): the callers' and the service's own (a lease's stop, SPEC 31). */
export type RecordedJob = JobsWhose<'ids', 'intent' | 'internal'>;
/** A lease's timers (SPEC 31). */
export type LeaseJob = JobsWhose<'ids', 'lease'>;
/** The jobs a caller enqueues for one name, each its own (check): the client, the API and the CLI take each alike. */
export type NameJob = JobsWhose<'ids', 'per-name'>;

/** The jobs a caller enqueues for a name (the producer library, the HTTP API, `pve-provisioner enqueue`). */
export type CallerJob = IntentJob | NameJob;

export const NAME_JOBS = JOB_NAMES.filter((job): job is NameJob => JOB_TABLE[job].ids === 'per-name');
export const CALLER_JOBS = JOB_NAMES.filter((job): job is CallerJob => JOB_TABLE[job].ids === 'intent' || JOB_TABLE[job].ids === 'per-name');

/** What a caller sends (no generation; create's uid optional). */
export interface JobInputs {
  create: CreateJobInput;
  delete: DeleteJobInput;
  check: CheckStoredJobData;
  health: HealthJobData;
  reconcile: ReconcileJobData;
  stop: StopJobData;
  'lease-expiry': LeaseTimerJobData;
  'lease-warning': LeaseTimerJobData;
  'pool-refill': PoolRefillJobData;
}

/** What a typed caller may send for a job (the producer library's parameter types): the defaulted fields may be left out. */
export type JobRequestOf<N extends JobName> = InputOf<(typeof JOB_TABLE)[N]['input']>;

/** What a stored job carries (the producer added uid and generation). */
export interface JobDataOf {
  create: CreateJobData;
  delete: DeleteJobData;
  check: CheckStoredJobData;
  health: HealthJobData;
  reconcile: ReconcileJobData;
  stop: StopJobData;
  'lease-expiry': LeaseTimerJobData;
  'lease-warning': LeaseTimerJobData;
  'pool-refill': PoolRefillJobData;
}

export function isJobName(value: string): value is JobName {
  return (JOB_NAMES as readonly string[]).includes(value);
}

/** Checks a caller's data, listing every failing field; fills defaults. */
export function validateJobData<N extends JobName>(jobName: N, data: unknown, limits: JobLimits): Validation<JobInputs[N]> {
  return validateFields<JobInputs[N]>(JOB_TABLE[jobName].input, data, limits);
}

/** What only the worker writes into a stored job (a create's step, SPEC 1): no job enters the queues with it. */
const WORKER_WRITTEN: readonly string[] = ['step'];

/** Checks a job's data as it enters the queues (src/queue/enqueue.ts): the stored fields less what only the worker writes. */
export function validateEnqueuedJobData<N extends JobName>(jobName: N, data: unknown, limits: JobLimits): Validation<JobDataOf[N]> {
  const fields = Object.fromEntries(Object.entries(JOB_TABLE[jobName].stored as JobFields).filter(([field]) => !WORKER_WRITTEN.includes(field)));
  return validateFields<JobDataOf[N]>(fields, data, limits);
}

/** Checks a stored job's data in the worker (old jobs may carry old shapes). */
export function validateStoredJobData<N extends JobName>(jobName: N, data: unknown, limits: JobLimits): Validation<JobDataOf[N]> {
  return validateFields<JobDataOf[N]>(JOB_TABLE[jobName].stored, data, limits);
}

/** The caller's data of a job as a JSON Schema object (OpenAPI, route docs). */
export function jobJsonSchema(jobName: JobName, limits: JobLimits): Record<string, unknown> {
  return fieldsJsonSchema(JOB_TABLE[jobName].input, limits);
}
