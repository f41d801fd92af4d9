// Address leases for tests (SPEC 29) written straight into the pools'
// shared layout (src/redis-keys.ts), as the door's allocation leaves
// them: the lease under `<name> <uid>`, its address held by that holder.
// Pools are in 127.0.0.0/8, so nothing a test does can reach off the machine.
import type { AddressLease } from '../../src/addresses/types.js';
import type { NetworkPoolConfig } from '../../src/config/types.js';
import type { RedisClient } from '../../src/redis-script.js';
import { keys } from '../../src/redis-keys.js';

/** A pool on 127.77.0.0/24 with every field filled as the config's defaults would. */
export function testPool(overrides: Partial<NetworkPoolConfig> = {}): NetworkPoolConfig {
  return { name: 'lab', bridge: 'vmbr0', cidr: '127.77.0.0/24', gateway: '127.77.0.1', dns: ['127.0.0.53'], exclude: [], reuseCooldownSeconds: 600, ...overrides };
}

/** Writes the lease and its held entry; answers the lease as stored. */
export async function putLease(redis: RedisClient, prefix: string, held: { name: string; uid: string; pool: string; address: string }): Promise<AddressLease> {
  const lease: AddressLease = { pool: held.pool, address: held.address, prefixLength: 24, gateway: '127.77.0.1', dns: ['127.0.0.53'], uid: held.uid, takenAt: new Date().toISOString() };
  await redis.hset(keys.addressLeases(prefix), `${held.name} ${held.uid}`, JSON.stringify(lease));
  await redis.hset(keys.addressHeld(prefix, held.pool), held.address, `${held.name} ${held.uid}`);
  return lease;
}

/** What the pool's keys hold now: the lease's JSON, the address's holder, its cooling score. */
export async function leaseState(redis: RedisClient, prefix: string, held: { name: string; uid: string; pool: string; address: string }): Promise<{ lease: string | null; holder: string | null; coolingUntil: number | undefined }> {
  const [lease, holder, score] = await Promise.all([
    redis.hget(keys.addressLeases(prefix), `${held.name} ${held.uid}`),
    redis.hget(keys.addressHeld(prefix, held.pool), held.address),
    redis.zscore(keys.addressCooling(prefix, held.pool), held.address),
  ]);
  return { lease, holder, coolingUntil: score === null ? undefined : Number(score) };
}

/** JobDeps.addresses for job tests with no pools: no lease to end. */
export { NO_ADDRESS_POOLS as NO_ADDRESS_LEASES } from '../../src/worker/address-deps.js';
