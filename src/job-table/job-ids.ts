// Every shape a job id takes (SPEC 2, 6), in one place. BullMQ numbers
// jobs per queue, so a bare number could name a job in both queues; ids
// of our own make getJob(id) unambiguous. The registry's Lua builds an
// intent's id inside Redis from intentJobIdPrefix (src/queue/registry.ts
// passes it in), and the producer's door (src/queue/enqueue.ts) picks the
// shape for every other job. Producer-safe: no worker code.
import { randomUUID } from 'node:crypto';
import { JOB_NAMES, JOB_TABLE } from './schema.js';

/** Longer than any id of the shapes below (a 63-character name, a uuid, a generation). */
const MAX_JOB_ID_LENGTH = 200;

/** The jobs whose request the registry records as the name's desired state (SPEC 2). */
export type IntentJobName = 'create' | 'delete' | 'stop';

/** What the registry's Lua puts before the generation it hands out: `create-<name>-`. */
export function intentJobIdPrefix(job: IntentJobName, name: string): string {
  return `${job}-${name}-`;
}

/** The job of a recorded intent: `create-<name>-<generation>`, `delete-<name>-<generation>`. */
export function intentJobId(job: IntentJobName, name: string, generation: number): string {
  return `${intentJobIdPrefix(job, name)}${generation}`;
}

/**
 * A recorded intent's job added once more (the reconciler's create of a
 * present name whose VM is gone): `create-<name>-<generation>-<uuid>`. The
 * first may still be kept as completed, and adding under its id would add
 * nothing.
 */
export function repeatedIntentJobId(job: IntentJobName, name: string, generation: number): string {
  return `${intentJobId(job, name, generation)}-${randomUUID()}`;
}

/**
 * A lease's timer (SPEC 31): `lease-expiry-<name>-<generation>-<version>`,
 * one per lease version of one generation, so a newer lease's timer never
 * shares an id with an older one kept as completed.
 */
export function leaseJobId(job: 'lease-expiry' | 'lease-warning', name: string, generation: number, version: number): string {
  return `${job}-${name}-${generation}-${version}`;
}

/** A job for one name that records no intent (a check, a delete of one uid's VM): `<job>-<name>-<uuid>`. */
export function nameJobId(job: string, name: string): string {
  return `${job}-${name}-${randomUUID()}`;
}

/** A job of no name added by hand (the CLI's reconcile): `<job>-<uuid>`. */
export function ownJobId(job: string): string {
  return `${job}-${randomUUID()}`;
}

/**
 * The key of which at most one job waits (BullMQ's deduplication id):
 * `<job>-<key>`, such as `pool-refill-<pool>` (SPEC 30). The job itself
 * keeps an id of its own shape; the key only says which jobs are one.
 */
export function oneWaitingKey(job: string, key: string): string {
  return `${job}-${key}`;
}

/** A schedule (a BullMQ job scheduler) is named after the job it adds: `health`, `reconcile`. */
export function schedulerId(job: string): string {
  return job;
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A VM name, as src/job-table/fields.ts's DNS_LABEL takes it: 1 to 63 of a-z 0-9 -, not starting or ending with -. */
const NAME = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const GENERATION = '\\d{1,16}';

function anyOf(jobs: readonly string[]): string {
  return `(?:${jobs.join('|')})`;
}

const idsOf = (job: (typeof JOB_NAMES)[number]): string => JOB_TABLE[job].ids;
const intentJobs = JOB_NAMES.filter((job) => idsOf(job) === 'intent' || idsOf(job) === 'internal');
const nameJobs = JOB_NAMES.filter((job) => idsOf(job) === 'intent' || idsOf(job) === 'per-name');
const leaseJobs = JOB_NAMES.filter((job) => idsOf(job) === 'lease');
const systemJobs = JOB_NAMES.filter((job) => JOB_TABLE[job].ids === 'system');

/** BullMQ's id for a job its scheduler adds: `repeat:<scheduler id>:<millis>`. */
const SCHEDULED_JOB_ID = new RegExp(`^repeat:${anyOf(JOB_NAMES.map(schedulerId))}:\\d{1,16}$`);

/** Every shape above, and a scheduler's. */
const JOB_ID_SHAPES = [
  new RegExp(`^${anyOf(intentJobs)}-${NAME}-${GENERATION}(?:-${UUID})?$`),
  new RegExp(`^${anyOf(nameJobs)}-${NAME}-${UUID}$`),
  new RegExp(`^${anyOf(systemJobs)}-${UUID}$`),
  new RegExp(`^${anyOf(leaseJobs)}-${NAME}-${GENERATION}-${GENERATION}$`),
  SCHEDULED_JOB_ID,
];

/** Whether a schedule added the job (health, reconcile), rather than a caller or the CLI. */
export function isScheduledJobId(id: string): boolean {
  return SCHEDULED_JOB_ID.test(id);
}

/**
 * Whether `id` has a shape this service gives job ids. Anything else names
 * no job of ours, and may be a BullMQ key of the queue (`id`, `events`,
 * `meta`): answered as no such job without asking Redis.
 */
export function isJobIdShape(id: string): boolean {
  return id.length <= MAX_JOB_ID_LENGTH && JOB_ID_SHAPES.some((shape) => shape.test(id));
}
