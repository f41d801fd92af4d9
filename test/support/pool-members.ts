// Warm pool members for tests (SPEC 30), made as the refill will make
// them: an entry under the pool's next number, the member's create
// accepted as the refill's (acceptMemberCreate: poolMember, no claim),
// then marked idle with a VMID and node as its completed create would
// leave it. No worker runs: the member's create job just waits.
import type { Config } from '../../src/config/types.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { shapeFingerprint } from '../../src/pools/fingerprint.js';
import { RedisPoolStore } from '../../src/pools/pool-store.js';
import type { PoolConfig, PoolMember } from '../../src/pools/types.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import type { IntentWriters } from '../../src/queue/intent.js';
import { acceptMemberCreate } from '../../src/pools/member-create.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import type { RedisClient } from '../../src/redis-script.js';

export interface PoolWorld {
  store: RedisPoolStore;
  writers: IntentWriters;
  queues: Queues;
  /** A member of `pool`, created through the door and idle with `vmid` on `node`, ready at `readyAt`. */
  idleMember(pool: PoolConfig, vmid: number, node: string, readyAt?: Date): Promise<PoolMember>;
}

const NO_LEASE_TIMERS = { set: () => Promise.resolve(), clear: () => Promise.resolve() };

/** The refill's view of Redis for a test: `prefix` is the key prefix (keyPrefixOf: the hash tag on a Cluster). */
export function poolWorld(redis: RedisClient, prefix: string, config: Config): PoolWorld {
  const limits = limitsFromConfig(config);
  const queues = createQueues(redis, prefix);
  const registry = new DesiredStateRegistry(redis, prefix, 60);
  const writers: IntentWriters = { door: jobDoor(queues, limits), registry, limits, leaseTimer: NO_LEASE_TIMERS };
  const store = new RedisPoolStore(redis, prefix);
  return {
    store,
    writers,
    queues,
    async idleMember(pool, vmid, node, readyAt = new Date()) {
      const fingerprint = shapeFingerprint(pool);
      const added = await store.addMember(pool, fingerprint, `uid-${pool.name}-${vmid}`, new Date());
      const { name } = added;
      const accepted = await acceptMemberCreate(writers, pool, added);
      const record = await registry.get(name);
      const member: PoolMember = { ...added, vmid, node, readyAt: readyAt.toISOString(), ...(record?.address === undefined ? {} : { address: record.address.address }) };
      if (accepted.origin !== 'cold') throw new Error(`a member's create claimed: ${JSON.stringify(accepted)}`);
      if ((await store.markIdle(member, fingerprint)) !== 'idle') throw new Error(`member ${name} was not marked idle`);
      return member;
    },
  };
}
