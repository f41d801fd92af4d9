// A warm pool's member made and ended as any name is (SPEC 2, 30): its
// create recorded present through the registry and added through the
// door, as acceptCreate does, but with the pool's shape, no sshKeys,
// waitForAddress, `poolMember` in its data, no lease, and behind every
// caller's job (the door's `background` order); its delete is the
// ordinary one (acceptDelete). It never claims: a claim is the caller's
// create's (the door's RECORD_PRESENT with a claim), never a member's.
import { IN_PLACE_FIELDS, SPEC_FIELDS, specFieldDefaults } from '../job-table/create.schema.js';
import type { CreateSpec } from '../job-table/create.schema.js';
import { poolOfCreate } from '../queue/address-door.js';
import { acceptDelete } from '../queue/intent.js';
import type { EnqueueResult, IntentWriters } from '../queue/intent.js';
import { ConflictError } from '../queue/producer-errors.js';
import type { PoolConfig, PoolMember } from './types.js';

/** What the member's VM is: the pool's shape under the member's name and uid. */
export function memberSpec(pool: PoolConfig, member: Pick<PoolMember, 'name' | 'uid'>): CreateSpec {
  return {
    name: member.name,
    uid: member.uid,
    image: pool.image,
    cores: pool.cores,
    memoryMiB: pool.memoryMiB,
    diskGiB: pool.diskGiB,
    waitForAddress: true,
    ...(pool.node === undefined ? {} : { node: pool.node }),
    ...(pool.bridge === undefined ? {} : { bridge: pool.bridge }),
    ...(pool.vlanTag === undefined ? {} : { vlanTag: pool.vlanTag }),
  };
}

/**
 * Records the member present (with an address lease on a pooled network,
 * SPEC 29) and adds its create job at background priority. Throws
 * ConflictError when the name is present with another uid or spec (a
 * member's name is new from the pool's counter, so only lost Redis data
 * or a hand-made record could do it), PoolExhaustedError when its
 * network's address pool is full.
 */
export async function acceptMemberCreate({ door, registry, limits }: Omit<IntentWriters, 'leaseTimer'>, pool: PoolConfig, member: PoolMember): Promise<EnqueueResult> {
  const spec = memberSpec(pool, member);
  const addressPool = poolOfCreate(spec, limits);
  return door.accept(async () => {
    // poolMember recorded with the spec too: a create the sweep adds again (a lost job) is still the member's.
    const outcome = await registry.recordPresent(spec.name, spec.uid, { ...spec, poolMember: pool.name }, {
      compare: SPEC_FIELDS,
      absentMeans: specFieldDefaults(limits),
      inPlace: IN_PLACE_FIELDS,
      ...(addressPool === undefined ? {} : { pool: addressPool }),
    });
    if (outcome.kind === 'conflict' || outcome.kind === 'updated') throw new ConflictError(spec.name, outcome.kind === 'conflict' ? outcome.existingUid : outcome.uid);
    const data = { ...spec, generation: outcome.generation, poolMember: pool.name, ...(outcome.address === undefined ? {} : { address: outcome.address }) };
    if (outcome.kind === 'existing') await door.ensure('create', data, outcome.jobId, 'background');
    else await door.add('create', data, { recorded: outcome.jobId }, 'background');
    return { jobId: outcome.jobId, name: spec.name, generation: outcome.generation, uid: outcome.uid, existing: outcome.kind === 'existing' };
  });
}

/** The ordinary delete of a member's name and uid: recorded absent, its delete job added (SPEC 2). */
export function acceptMemberDelete(writers: Omit<IntentWriters, 'limits'>, member: Pick<PoolMember, 'name' | 'uid'>): Promise<EnqueueResult> {
  return acceptDelete(writers, { name: member.name, uid: member.uid });
}
