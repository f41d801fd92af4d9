// How many addresses a pool may hand out (SPEC 29), for its metrics: the
// range first..last less the addresses the door's allocation skips inside
// it (pool-args.ts neverHandedOut: network, broadcast, gateway, `exclude`),
// so the figure and the allocation follow one rule. Arithmetic on the
// range, so a /16 costs no more than a /28.
import type { NetworkPoolConfig } from '../config/types.js';
import { poolRange } from '../config/network-pools.js';
import { neverHandedOut } from './pool-args.js';

/** The addresses the pool may hand out: 0 for a pool whose range is empty or not IPv4. */
export function handOutSize(pool: NetworkPoolConfig): number {
  const range = poolRange(pool);
  if (range === undefined || range.last < range.first) return 0;
  return range.last - range.first + 1 - neverHandedOut(pool, range).length;
}
