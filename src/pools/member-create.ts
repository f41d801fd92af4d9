// A warm pool's member made and ended as any name is (SPEC 2, 30): its
// create is a create through the door's one accept (acceptCreate), of the
// pool's shape under the member's name and uid, with no sshKeys, waiting
// for its address, no lease (ttlSeconds 0: the member is the service's
// until a claim gives it the claimer's), `poolMember` in its record and
// job, and behind every caller's job (the door's `background` order); its
// delete is the ordinary one (acceptDelete). What is here is only what a
// member's create says differently from a caller's.
import type { CreateJobInput } from '../job-table/create.schema.js';
import { validateJobData, type JobLimits } from '../job-table/schema.js';
import { acceptCreate, acceptDelete } from '../queue/intent.js';
import type { EnqueueResult, IntentWriters } from '../queue/intent.js';
import { ValidationError } from '../queue/producer-errors.js';
import type { PoolConfig, PoolMember } from './types.js';

/**
 * The member's create as a caller's would be sent: the pool's shape under
 * the member's name and uid, checked by the field table (its defaults
 * filled); with several clusters, naming the pool's (SPEC 32: a pool with
 * none is the first's), so its VM is where the pool's claims look.
 */
export function memberInput(pool: PoolConfig, member: Pick<PoolMember, 'name' | 'uid'>, limits: JobLimits): CreateJobInput {
  const [firstCluster] = limits.clusters ?? [];
  const input = {
    name: member.name,
    uid: member.uid,
    image: pool.image,
    cores: pool.cores,
    memoryMiB: pool.memoryMiB,
    diskGiB: pool.diskGiB,
    waitForAddress: true,
    ttlSeconds: 0,
    ...(pool.node === undefined ? {} : { node: pool.node }),
    ...(pool.bridge === undefined ? {} : { bridge: pool.bridge }),
    ...(pool.vlanTag === undefined ? {} : { vlanTag: pool.vlanTag }),
    ...(firstCluster === undefined ? {} : { cluster: pool.cluster ?? firstCluster.name }),
  };
  const checked = validateJobData('create', input, limits);
  if (!checked.ok) throw new ValidationError(checked.errors);
  return checked.value;
}

/**
 * Records the member present (with an address lease on a pooled network,
 * SPEC 29) and adds its create job at background priority. Throws what
 * acceptCreate throws: ConflictError or SpecConflictError when the name
 * is present with another uid or spec (a member's name is new from the
 * pool's counter, so only lost Redis data or a hand-made record could do
 * it), PoolExhaustedError when its network's address pool is full.
 */
export function acceptMemberCreate(writers: IntentWriters, pool: PoolConfig, member: PoolMember): Promise<EnqueueResult> {
  return acceptCreate(writers, memberInput(pool, member, writers.limits), { poolMember: pool.name, order: 'background' });
}

/** The ordinary delete of a member's name and uid: recorded absent, its delete job added (SPEC 2). */
export function acceptMemberDelete(writers: Omit<IntentWriters, 'limits'>, member: Pick<PoolMember, 'name' | 'uid'>): Promise<EnqueueResult> {
  return acceptDelete(writers, { name: member.name, uid: member.uid });
}
