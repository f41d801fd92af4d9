// How many addresses a pool may hand out (SPEC 29), for its metrics: the
// range first..last (the subnet's first and last host when absent) less
// the addresses never handed out inside it (the network and broadcast
// addresses, the gateway, `exclude`). Arithmetic on the range, so a /16
// costs no more than a /28.
import type { NetworkPoolConfig } from '../config/types.js';
import { ipv4ToNumber, parseCidr, type Ipv4Subnet } from './ipv4.js';

/** The pool's range as numbers; undefined when its cidr (or first, last) is not IPv4. */
export function poolRange(pool: Pick<NetworkPoolConfig, 'cidr' | 'first' | 'last'>): { subnet: Ipv4Subnet; first: number; last: number } | undefined {
  const subnet = parseCidr(pool.cidr);
  if (subnet === undefined) return undefined;
  // A /31 or /32 has no network or broadcast address to leave out (RFC 3021).
  const hostsOnly = subnet.prefixLength <= 30;
  const first = pool.first === undefined ? subnet.network + (hostsOnly ? 1 : 0) : ipv4ToNumber(pool.first);
  const last = pool.last === undefined ? subnet.broadcast - (hostsOnly ? 1 : 0) : ipv4ToNumber(pool.last);
  if (first === undefined || last === undefined) return undefined;
  return { subnet, first, last };
}

/** The numbers an `exclude` entry names: one address, or a CIDR block. */
function excludedNumbers(entry: string): { from: number; to: number } | undefined {
  const single = ipv4ToNumber(entry);
  if (single !== undefined) return { from: single, to: single };
  const block = entry.includes('/') ? parseCidr(entry) : undefined;
  return block && { from: block.network, to: block.broadcast };
}

/** The addresses the pool may hand out: 0 for a pool whose range is empty or not IPv4. */
export function handOutSize(pool: NetworkPoolConfig): number {
  const range = poolRange(pool);
  if (range === undefined || range.last < range.first) return 0;
  const { subnet, first, last } = range;
  const never = new Set<number>();
  const leaveOut = (from: number, to: number): void => {
    for (let n = Math.max(from, first); n <= Math.min(to, last); n += 1) never.add(n);
  };
  if (subnet.prefixLength <= 30) {
    leaveOut(subnet.network, subnet.network);
    leaveOut(subnet.broadcast, subnet.broadcast);
  }
  const gateway = pool.gateway === undefined ? undefined : ipv4ToNumber(pool.gateway);
  if (gateway !== undefined) leaveOut(gateway, gateway);
  for (const entry of pool.exclude) {
    const numbers = excludedNumbers(entry);
    if (numbers) leaveOut(numbers.from, numbers.to);
  }
  return last - first + 1 - never.size;
}
