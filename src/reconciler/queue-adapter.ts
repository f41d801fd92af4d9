// The sweep's JobLookup and Enqueuer over the job layer's vm queue and
// registry (SPEC 1, 2). A reconciler delete records no desired state: it
// carries the generation its decision was made on, so any intent recorded
// later supersedes it (jobs/delete.ts), and it is refused here when the
// name moved on since the sweep read it, or now claims the VM's uid.
import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis-script.js';
import type { JobDoor } from '../queue/enqueue.js';
import { expireLease } from '../queue/lease-expiry.js';
import { recordedExpiryTimer } from '../queue/lease-timer.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import { keys } from '../redis-keys.js';
import type { DesiredRecord } from '../desired-state.js';
import { acceptDelete } from '../queue/intent.js';
import type { LeaseTimer } from '../queue/lease-timer.js';
import { knownGeneration } from './registry-adapter.js';
import type { Enqueuer, JobLookup } from './ports.js';
import { ownerField } from '../tenants/types.js';

/** The decision no longer holds: the next sweep decides again. */
export class StaleDecisionError extends Error {
  override readonly name = 'StaleDecisionError';
}

/** For a delete of a name that has no lease: nothing to clear. */
const NO_LEASE_TIMER: LeaseTimer = { set: () => Promise.resolve(), clear: () => Promise.resolve() };

const PENDING_STATES: ReadonlySet<string> = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

export interface PendingJobLookupOptions {
  vmQueue: Queue;
  /** The lease timers' queue (SPEC 31); without it no expiry timer is ever pending. */
  leaseQueue?: Queue;
  registry: DesiredStateRegistry;
  redis: RedisClient;
  prefix: string;
}

/**
 * A name has a job pending when the job of its current intent (the
 * registry's jobId) or the last job the reconciler added for it is
 * waiting, delayed or active. Two state reads per name, whatever the
 * size of the queue and of the jobs' data.
 */
export function pendingJobLookup({ vmQueue, leaseQueue, registry, redis, prefix }: PendingJobLookupOptions): JobLookup {
  return {
    async hasPendingExpiry(name, version) {
      if (leaseQueue === undefined) return false;
      const jobId = await recordedExpiryTimer(redis, prefix, name, version);
      return jobId !== undefined && PENDING_STATES.has(await leaseQueue.getJobState(jobId));
    },
    async hasPendingJob(name) {
      const [record, added] = await Promise.all([registry.get(name), redis.hget(keys.reconcilerJobs(prefix), name)]);
      for (const jobId of [record?.jobId, added ?? undefined]) {
        if (jobId !== undefined && PENDING_STATES.has(await vmQueue.getJobState(jobId))) return true;
      }
      return false;
    },
  };
}

export interface QueueEnqueuerOptions {
  /** The producer's door (src/queue/enqueue.ts): it checks the data, picks the queue and the job id. */
  jobs: JobDoor;
  registry: DesiredStateRegistry;
  redis: RedisClient;
  prefix: string;
}

export function queueEnqueuer({ jobs, registry, redis, prefix }: QueueEnqueuerOptions): Enqueuer {
  const remember = async (name: string, jobId: string): Promise<void> => {
    await redis.hset(keys.reconcilerJobs(prefix), name, jobId);
  };
  /** SPEC 30: the member's name recorded absent and its delete added, as a caller's delete, while its claim is still abandoned (the claimer not present with the claiming uid). */
  const deleteAbandonedMember = async (record: DesiredRecord | undefined, uid: string): Promise<string> => {
    const [claimer = '', claimerUid = ''] = record?.claimedBy?.split(' ') ?? [];
    const now = claimer === '' ? undefined : await registry.get(claimer);
    if (record?.state !== 'present' || record.uid !== uid || record.claimedBy === undefined || (now?.state === 'present' && now.uid === claimerUid)) {
      throw new StaleDecisionError(`${record?.name ?? 'the member'} is no longer an abandoned claim of uid ${uid}`);
    }
    // A member has no lease (src/pools/member-create.ts), so no lease timer is ever cleared here.
    const accepted = await acceptDelete({ door: jobs, registry, leaseTimer: NO_LEASE_TIMER }, { name: record.name, uid });
    await remember(record.name, accepted.jobId);
    return accepted.jobId;
  };
  return {
    async expireLease({ name, version }) {
      const outcome = await expireLease({ door: jobs, registry }, name, version);
      if (outcome.kind !== 'recorded' && outcome.kind !== 'existing') return undefined;
      await remember(name, outcome.jobId);
      return outcome.jobId;
    },

    async enqueueDelete({ name, uid, reason, seenGeneration, nameGoes, cluster }) {
      const record = await registry.get(name);
      const current = record?.generation ?? (await knownGeneration(redis, prefix, name));
      if (current !== seenGeneration) {
        throw new StaleDecisionError(`${name} moved from generation ${seenGeneration} to ${String(current)} since the sweep read it`);
      }
      if (nameGoes) return deleteAbandonedMember(record, uid);
      if (record?.state === 'present' && record.uid === uid) {
        throw new StaleDecisionError(`${name} is now present with uid ${uid}`);
      }
      // The name's owner (SPEC 34) sees the job and gets its webhooks; it
      // runs in the cluster the VM was found in (SPEC 32), which for a name
      // with no record, or one of another cluster, is not the record's.
      const job = await jobs.add('delete', { name, uid, generation: seenGeneration, ...ownerField(record), ...(cluster === undefined ? {} : { cluster }) });
      await remember(name, job.id ?? '');
      await job.log(reason);
      return job.id ?? '';
    },

    async enqueueCreate({ name, generation }) {
      const record = await registry.get(name);
      if (record?.state !== 'present' || record.generation !== generation || record.spec === undefined) {
        throw new StaleDecisionError(`${name} is no longer present at generation ${generation}`);
      }
      if (record.failed !== undefined) throw new StaleDecisionError(`${name}: its create failed Permanent since the sweep read it (${record.failed.reason})`);
      // A new job id: the first create may still be kept as completed, and
      // adding under its id would add nothing.
      // The name's address lease goes with it (SPEC 29): the VM made again gets the address the name holds.
      const job = await jobs.add('create', { ...record.spec, generation, ...(record.address === undefined ? {} : { address: record.address }), ...ownerField(record) }, 'again');
      await remember(name, job.id ?? '');
      await job.log('reconciler: the present name had no VM, or an in-place change not applied, and no job; its create is enqueued again');
      return job.id ?? '';
    },
  };
}
