// The leases of the address pools as the worker, the sweep and the
// metrics read and end them (SPEC 29), on the shared layout of
// src/redis-keys.ts: a lease under `<name> <uid>`, its address held in
// its pool, and resting networks[].reuseCooldownSeconds once released.
// The door takes leases (RECORD_PRESENT); this ends them and counts.
import type { NetworkPoolConfig } from '../config/types.js';
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { handOutSize } from './pool-size.js';
import { POOL_FIGURES, RELEASE_ADDRESS } from './release-scripts.js';
import type { AddressLease } from './types.js';

/** When nothing may end a lease: `unclaimed`, while its name is present with its uid; `failed`, the same unless that create's Permanent failure is on the name. */
export type ReleaseGuard = 'none' | 'unclaimed' | 'failed';

/** One lease as it is kept: whose it is, and the lease. */
export interface HeldLease {
  name: string;
  uid: string;
  lease: AddressLease;
}

/** A lease a release ended. */
export interface ReleasedAddress {
  name: string;
  uid: string;
  pool: string;
  address: string;
  /** Redis time (ms) from which the address may be handed out again; absent when another holder has it now. */
  restsUntilMs?: number;
}

/** One pool's addresses by state, for pvep_address_pool_addresses. */
export interface PoolCounts {
  pool: string;
  inUse: number;
  free: number;
  cooling: number;
}

/** The schema's default (SPEC 29), for a lease of a pool no longer configured. */
const DEFAULT_COOLDOWN_SECONDS = 600;

/** A lease's field in the leases hash, and a holder in a pool's held hash. */
export function holderOf(name: string, uid: string): string {
  return `${name} ${uid}`;
}

function parseLease(json: string): AddressLease | undefined {
  try {
    const lease = JSON.parse(json) as Partial<AddressLease>;
    return typeof lease.pool === 'string' && typeof lease.address === 'string' ? (lease as AddressLease) : undefined;
  } catch {
    return undefined;
  }
}

export class AddressPoolStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly pools: readonly NetworkPoolConfig[],
  ) {}

  async leaseOf(name: string, uid: string): Promise<AddressLease | undefined> {
    const json = await this.redis.hget(keys.addressLeases(this.prefix), holderOf(name, uid));
    return json === null ? undefined : parseLease(json);
  }

  /** Every lease; a field that is not `<name> <uid>` with a lease is skipped. */
  async list(): Promise<HeldLease[]> {
    const all = await this.redis.hgetall(keys.addressLeases(this.prefix));
    const held: HeldLease[] = [];
    for (const [field, json] of Object.entries(all)) {
      const space = field.indexOf(' ');
      const lease = parseLease(json);
      if (space > 0 && lease !== undefined) held.push({ name: field.slice(0, space), uid: field.slice(space + 1), lease });
    }
    return held;
  }

  /** Ends name+uid's lease, unless its guard holds; undefined when there was none or the guard kept it. Idempotent. */
  async release(name: string, uid: string, guard: ReleaseGuard = 'none'): Promise<ReleasedAddress | undefined> {
    const field = holderOf(name, uid);
    // The pool, so its keys, comes from the lease: read it, then release it if it is still the one read.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const json = await this.redis.hget(keys.addressLeases(this.prefix), field);
      const lease = json === null ? undefined : parseLease(json);
      if (json === null || lease === undefined) return undefined;
      const scriptKeys = [keys.addressLeases(this.prefix), keys.addressHeld(this.prefix, lease.pool), keys.addressCooling(this.prefix, lease.pool), keys.desired(this.prefix, name)];
      const [kind, address = '', until = ''] = (await RELEASE_ADDRESS.run(this.redis, scriptKeys, [field, json, this.cooldownMs(lease.pool), guard, uid])) as string[];
      if (kind === 'changed') continue;
      if (kind !== 'released') return undefined;
      return { name, uid, pool: lease.pool, address, ...(until === '' ? {} : { restsUntilMs: Number(until) }) };
    }
    throw new Error(`the address lease of ${name} ${uid} changed three times while it was being released`);
  }

  /** The pool configured for a lease's pool name, whose reuseCooldownSeconds it rests. */
  cooldownMs(pool: string): number {
    const configured = this.pools.find((p) => p.name === pool);
    return (configured?.reuseCooldownSeconds ?? DEFAULT_COOLDOWN_SECONDS) * 1000;
  }

  /** Each configured pool's addresses in use, resting and free, read in one script. */
  async counts(): Promise<PoolCounts[]> {
    if (this.pools.length === 0) return [];
    const scriptKeys = this.pools.flatMap((pool) => [keys.addressHeld(this.prefix, pool.name), keys.addressCooling(this.prefix, pool.name)]);
    const figures = (await POOL_FIGURES.run(this.redis, scriptKeys, [])) as number[];
    return this.pools.map((pool, i) => {
      const inUse = Number(figures[2 * i] ?? 0);
      const cooling = Number(figures[2 * i + 1] ?? 0);
      return { pool: pool.name, inUse, cooling, free: Math.max(0, handOutSize(pool) - inUse - cooling) };
    });
  }
}
