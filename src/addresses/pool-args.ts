// What the allocation script (allocate-scripts.ts) is given of a pool
// (SPEC 29): its range and the addresses never handed out, as numbers
// (never the pool's list of addresses), and the lease it writes, less the
// address and uid it settles itself.
import type { NetworkPoolConfig } from '../config/types.js';
import { poolRange, type PoolRange } from '../config/network-pools.js';
import { ipv4ToNumber } from './ipv4.js';

export interface AllocationArgs {
  /** JSON {first, last, skip}: the range and, inside it, the network, broadcast, gateway and excluded addresses. */
  pool: string;
  /** The lease's JSON without address and uid. */
  head: string;
}

export function allocationArgs(pool: NetworkPoolConfig, takenAt: string): AllocationArgs {
  const range = poolRange(pool);
  if (range === undefined) throw new Error(`address pool ${pool.name}: cidr ${pool.cidr}, first or last is not valid (the config check lets none through)`);
  const skip = neverHandedOut(pool, range);
  const head = { pool: pool.name, prefixLength: range.subnet.prefixLength, ...(pool.gateway === undefined ? {} : { gateway: pool.gateway }), dns: pool.dns, takenAt };
  return { pool: JSON.stringify({ first: range.first, last: range.last, skip }), head: JSON.stringify(head) };
}

/** The addresses inside the range never handed out (network, broadcast, gateway, `exclude`), once each: what the door skips and the metrics leave out. */
export function neverHandedOut(pool: Pick<NetworkPoolConfig, 'gateway' | 'exclude'>, range: PoolRange): number[] {
  const never = [range.subnet.network, range.subnet.broadcast, ...[pool.gateway, ...pool.exclude].map((text) => (text === undefined ? undefined : ipv4ToNumber(text)))];
  return [...new Set(never.filter((n): n is number => n !== undefined && n >= range.first && n <= range.last))];
}
