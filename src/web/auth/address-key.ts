// The key failed authentications are counted under: an IPv4 address (also
// when it arrives IPv4-mapped), or an IPv6 address's /64, the block one
// host is usually given, so that walking through it gains nothing.
import { isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** The eight 16-bit groups of an IPv6 address, `::` filled in. */
function groupsOf(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right];
}

export function penaltyKey(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!isIPv6(address)) return address;
  const prefix = groupsOf(address.split('%')[0] ?? address)
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
