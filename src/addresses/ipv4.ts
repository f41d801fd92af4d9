// IPv4 addresses as numbers (SPEC 29): the pools hand out addresses by
// number, in Lua too, and compare ranges. IPv4 only; docs/decisions.md.

const QUAD_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The address as an unsigned 32-bit number; undefined when it is not a dotted quad. */
export function ipv4ToNumber(text: string): number | undefined {
  const match = QUAD_RE.exec(text);
  if (!match) return undefined;
  let value = 0;
  for (const part of match.slice(1)) {
    if (part.length > 1 && part.startsWith('0')) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function numberToIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

export interface Ipv4Subnet {
  /** The network address, as a number. */
  network: number;
  prefixLength: number;
  /** The broadcast address, as a number. */
  broadcast: number;
}

/** `10.0.0.0/24`; undefined when it is not a dotted quad, a `/`, and 0 to 32; the address's host bits are dropped. */
export function parseCidr(text: string): Ipv4Subnet | undefined {
  const [address, length, ...rest] = text.split('/');
  if (address === undefined || length === undefined || rest.length > 0 || !/^\d{1,2}$/.test(length)) return undefined;
  const prefixLength = Number(length);
  const value = ipv4ToNumber(address);
  if (value === undefined || prefixLength > 32) return undefined;
  const size = 2 ** (32 - prefixLength);
  const network = Math.floor(value / size) * size;
  return { network, prefixLength, broadcast: network + size - 1 };
}

export function inSubnet(subnet: Ipv4Subnet, value: number): boolean {
  return value >= subnet.network && value <= subnet.broadcast;
}

/** In 127.0.0.0/8 (SPEC 29: what a `tcp` probe may reach while proxmox.url is the simulator). */
export function isLoopbackIpv4(text: string): boolean {
  return text.split('.')[0] === '127' && ipv4ToNumber(text) !== undefined;
}
