// The OpenAPI schemas of a job as GET /v1/jobs/{id} answers it (SPEC 1, 6):
// one variant per job, told apart by `job`, each with its data and its
// result as src/job-table/result.schema.ts declares them, so a generated client
// narrows `result` by the job's name as the producer library does.
import { IN_PLACE_FIELDS, createSpecFields } from '../job-table/create.schema.js';
import { fieldsJsonSchema } from '../job-table/fields.js';
import type { JobLimits } from '../job-table/fields.js';
import { CREATE_STEPS, VM_STATES } from '../job-table/result.schema.js';
import { JOB_NAMES, JOB_TABLE } from '../job-table/schema.js';
import type { JobName } from '../job-table/schema.js';
import { JOB_STATES } from '../queue/job-view.js';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const variantName = (job: JobName): string => `${job.charAt(0).toUpperCase()}${job.slice(1)}Job`;

/** A field table's schema with userData and networkConfig as answers show them (SPEC 24). */
function summarized(schema: Schema): Schema {
  const properties = { ...(schema.properties as Record<string, Schema>) };
  for (const field of ['userData', 'networkConfig']) if (field in properties) properties[field] = ref('TextSummary');
  return { ...schema, properties };
}

/** A job's stored data as a view shows it: the worker's step is the view's own field. */
function jobDataSchema(job: JobName, limits: JobLimits): Schema {
  const schema = summarized(fieldsJsonSchema(JOB_TABLE[job].stored, limits));
  const { step: _step, ...properties } = schema.properties as Record<string, Schema>;
  return { ...schema, properties };
}

const vmState: Schema = { type: 'string', enum: [...VM_STATES] };

const superseded: Schema = {
  type: 'object',
  description: 'A newer request for the name made the job moot (SPEC 2): it touched nothing.',
  required: ['superseded', 'generation', 'currentGeneration'],
  properties: { superseded: { type: 'boolean', const: true }, generation: { type: 'integer' }, currentGeneration: { type: 'integer' } },
};

const RESULTS: Record<JobName, Schema | undefined> = {
  create: { oneOf: [ref('CreateResult'), ref('SupersededResult')] },
  delete: { oneOf: [ref('DeleteResult'), ref('SupersededResult')] },
  check: ref('CheckResult'),
  health: undefined,
  reconcile: undefined,
  stop: { oneOf: [ref('StopResult'), ref('SupersededResult')] },
  'lease-expiry': undefined,
  'lease-warning': undefined,
  'pool-refill': undefined,
};

function jobVariant(job: JobName): Schema {
  const result = RESULTS[job];
  return {
    type: 'object',
    required: ['id', 'job', 'data', 'state', 'progress', 'attemptsMade', 'logs', 'createdAt'],
    properties: {
      id: { type: 'string' },
      job: { type: 'string', enum: [job] },
      data: ref(`${variantName(job)}Data`),
      state: ref('JobState'),
      progress: { type: 'integer', minimum: 0, maximum: 100, description: "How far the job got (Bull Board's bar): a create's steps spread evenly up to its last." },
      ...(job === 'create' ? { step: ref('CreateStep') } : {}),
      result: { description: 'With state completed: the job result (SPEC 1).', ...(result ?? {}) },
      failedReason: { type: 'string' },
      attemptsMade: { type: 'integer' },
      logs: { type: 'array', items: { type: 'string' } },
      createdAt: { type: 'string', format: 'date-time' },
      finishedAt: { type: 'string', format: 'date-time' },
    },
  };
}

/** Job (one of the variants), each variant and its data, the results, the states and steps. */
export function jobSchemas(limits: JobLimits): Record<string, Schema> {
  const variants = Object.fromEntries(JOB_NAMES.flatMap((job) => [[variantName(job), jobVariant(job)], [`${variantName(job)}Data`, jobDataSchema(job, limits)]]));
  return {
    Job: {
      description: 'A job: its data (userData and networkConfig as a TextSummary), state, progress and step, log lines, result or failure reason. `job` tells which.',
      oneOf: JOB_NAMES.map((job) => ref(variantName(job))),
      discriminator: { propertyName: 'job', mapping: Object.fromEntries(JOB_NAMES.map((job) => [job, `#/components/schemas/${variantName(job)}`])) },
    },
    ...variants,
    JobState: { type: 'string', enum: [...JOB_STATES] },
    CreateStep: { type: 'string', enum: [...CREATE_STEPS], description: 'The last step a create reached (SPEC 1), in this order; address only with waitForAddress.' },
    VmSpec: summarized(fieldsJsonSchema(createSpecFields, limits)),
    TemplateSource: {
      type: 'object',
      description: 'The template the VM was cloned from: its VMID and the node holding it; target when the clone landed on another node (SPEC 23).',
      required: ['vmid', 'node'],
      properties: { vmid: { type: 'integer' }, node: { type: 'string' }, target: { type: 'string' } },
    },
    CreateResult: {
      type: 'object',
      required: ['providerId', 'vmid', 'node', 'uid', 'state', 'createdAt', 'image'],
      properties: {
        providerId: { type: 'string', description: 'vms/<vmid>/<name>' },
        vmid: { type: 'integer' },
        node: { type: 'string' },
        uid: { type: 'string' },
        state: { ...vmState, description: 'Running once the guest agent reported an address; Provisioning when the job did not wait for one.' },
        address: { type: 'string', description: 'With waitForAddress (the default): the address the guest agent reported.' },
        createdAt: { type: 'string', format: 'date-time' },
        image: { type: 'string', description: 'The image the VM was made from (GET /v1/images).' },
        source: ref('TemplateSource'),
        origin: { type: 'string', enum: ['pool', 'cold'], description: 'Where the VM came from (SPEC 30): pool, an idle VM of a warm pool the create claimed; cold, a clone of its own. Absent on a service with no pools.' },
        changed: {
          type: 'array',
          description: 'The fields this create changed on a VM of ours made before (SPEC 2): an in-place change. Absent otherwise.',
          items: { type: 'string', enum: Object.keys(IN_PLACE_FIELDS) },
        },
      },
    },
    DeleteResult: {
      type: 'object',
      required: ['deleted', 'seedsDeleted'],
      properties: { deleted: { type: 'boolean', description: 'false when there was no VM to delete.' }, vmid: { type: 'integer' }, seedsDeleted: { type: 'integer' } },
    },
    CheckResult: {
      type: 'object',
      required: ['state'],
      properties: { state: { ...vmState, description: 'Provisioning while a create or delete holds the name.' }, address: { type: 'string' }, vmid: { type: 'integer' }, node: { type: 'string' } },
    },
    StopResult: {
      type: 'object',
      description: "A stop at its lease's expiry (SPEC 31): the VM stays, stopped; a create of the same spec starts it again.",
      required: ['stopped'],
      properties: { stopped: { type: 'boolean', description: 'false when no VM of ours was running under the name.' }, vmid: { type: 'integer' }, node: { type: 'string' } },
    },
    SupersededResult: superseded,
  };
}
