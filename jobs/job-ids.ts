// Every shape a job id takes (SPEC 2, 6), in one place. BullMQ numbers
// jobs per queue, so a bare number could name a job in both queues; ids
// of our own make getJob(id) unambiguous. The registry's Lua builds an
// intent's id inside Redis from intentJobIdPrefix (src/queue/registry.ts
// passes it in), and the producer's door (src/queue/enqueue.ts) picks the
// shape for every other job. Producer-safe: no worker code.
import { randomUUID } from 'node:crypto';

/** The jobs whose request the registry records as the name's desired state (SPEC 2). */
export type IntentJobName = 'create' | 'delete';

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

/** A job for one name that records no intent (a check, a delete of one uid's VM): `<job>-<name>-<uuid>`. */
export function nameJobId(job: string, name: string): string {
  return `${job}-${name}-${randomUUID()}`;
}

/** A job of no name added by hand (the CLI's reconcile): `<job>-<uuid>`. */
export function ownJobId(job: string): string {
  return `${job}-${randomUUID()}`;
}

/** A schedule (a BullMQ job scheduler) is named after the job it adds: `health`, `reconcile`. */
export function schedulerId(job: string): string {
  return job;
}
