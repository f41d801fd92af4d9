// The sweep's JobLookup and Enqueuer over the job layer's vm queue and
// registry (SPEC 1, 2). A reconciler delete records no desired state: it
// carries the generation its decision was made on, so any intent recorded
// later supersedes it (jobs/delete.ts), and it is refused here when the
// name moved on since the sweep read it, or now claims the VM's uid.
import type { JobType, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { validateStoredJobData } from '../../jobs/schema.js';
import type { JobLimits } from '../../jobs/schema.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import { knownGeneration } from './registry-adapter.js';
import type { Enqueuer, JobLookup } from './ports.js';

/** The decision no longer holds: the next sweep decides again. */
export class StaleDecisionError extends Error {
  override readonly name = 'StaleDecisionError';
}

const PENDING_STATES: JobType[] = ['waiting', 'delayed', 'active', 'prioritized', 'waiting-children'];

/**
 * Names with a create or delete job waiting, delayed or active. One scan
 * of the queue serves every question for `maxAgeMs`, so a sweep costs one
 * scan, not one per name.
 */
export function pendingJobLookup(vmQueue: Queue, maxAgeMs = 1000, now: () => number = Date.now): JobLookup {
  let snapshot: { at: number; names: Promise<Set<string>> } | undefined;
  const scan = async (): Promise<Set<string>> => {
    const jobs = await vmQueue.getJobs(PENDING_STATES);
    const names = new Set<string>();
    for (const job of jobs) {
      const data = job.data as { name?: unknown } | undefined;
      if ((job.name === 'create' || job.name === 'delete') && typeof data?.name === 'string') names.add(data.name);
    }
    return names;
  };
  return {
    async hasPendingJob(name) {
      if (snapshot === undefined || now() - snapshot.at > maxAgeMs) {
        snapshot = { at: now(), names: scan() };
        snapshot.names.catch(() => (snapshot = undefined));
      }
      return (await snapshot.names).has(name);
    },
  };
}

export interface QueueEnqueuerOptions {
  vmQueue: Queue;
  registry: DesiredStateRegistry;
  redis: Redis;
  prefix: string;
  limits: JobLimits;
}

export function queueEnqueuer({ vmQueue, registry, redis, prefix, limits }: QueueEnqueuerOptions): Enqueuer {
  return {
    async enqueueDelete({ name, uid, reason, seenGeneration }) {
      const record = await registry.get(name);
      const current = record?.generation ?? (await knownGeneration(redis, prefix, name));
      if (current !== seenGeneration) {
        throw new StaleDecisionError(`${name} moved from generation ${seenGeneration} to ${String(current)} since the sweep read it`);
      }
      if (record?.state === 'present' && record.uid === uid) {
        throw new StaleDecisionError(`${name} is now present with uid ${uid}`);
      }
      const data = checked('delete', { name, uid, generation: seenGeneration }, limits);
      const job = await vmQueue.add('delete', data);
      await job.log(reason);
      return job.id ?? '';
    },

    async enqueueCreate({ name, generation }) {
      const record = await registry.get(name);
      if (record?.state !== 'present' || record.generation !== generation || record.spec === undefined) {
        throw new StaleDecisionError(`${name} is no longer present at generation ${generation}`);
      }
      // A new job id: the first create may still be kept as completed, and
      // adding under its id would add nothing.
      const data = checked('create', { ...record.spec, generation }, limits);
      const job = await vmQueue.add('create', data);
      await job.log('reconciler: the present name had no VM and no job; its create is enqueued again');
      return job.id ?? '';
    },
  };
}

function checked<N extends 'create' | 'delete'>(job: N, data: unknown, limits: JobLimits): object {
  const result = validateStoredJobData(job, data, limits);
  if (!result.ok) {
    throw new Error(`refused to enqueue ${job}: ${result.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  }
  return result.value;
}
