// The address of SPEC 10 from `agent/network-get-interfaces` (F21).
import { isIP } from 'node:net';
import type { AgentInterface } from '../proxmox/api.js';
import { parseNet0 } from './vm-config.js';

const CONTAINER_BRIDGE = /^(docker|veth|br-)/;

function isUsableIpv4(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number);
  // Stryker disable next-line ConditionalExpression,LogicalOperator,BooleanLiteral: reached only after isIP(ip) === 4, so a and b always exist; the check is for the type checker
  if (a === undefined || b === undefined) return false;
  return a !== 127 && a !== 0 && !(a === 169 && b === 254);
}

function isUsableIpv6(ip: string): boolean {
  // Stryker disable next-line StringLiteral: split always yields a first element; the fallback is for the type checker
  const lower = ip.toLowerCase().split('%')[0] ?? '';
  if (lower === '::1' || lower === '::') return false;
  // fe80::/10 is link-local.
  return !/^fe[89ab][0-9a-f]:/.test(lower);
}

function addressesOf(iface: AgentInterface, family: 'ipv4' | 'ipv6'): string[] {
  return (iface['ip-addresses'] ?? [])
    .filter((a) => a['ip-address-type'] === family)
    .map((a) => a['ip-address'])
    .filter((ip) => (family === 'ipv4' ? isIP(ip) === 4 && isUsableIpv4(ip) : isUsableIpv6(ip)));
}

/** The interface carrying net0's MAC when the guest reports it, else every interface but loopback and container bridges. */
function candidatesOf(interfaces: AgentInterface[], net0: string | undefined): AgentInterface[] {
  const mac = net0 === undefined ? undefined : parseNet0(net0).mac?.toLowerCase();
  const byMac = mac === undefined ? [] : interfaces.filter((i) => i['hardware-address']?.toLowerCase() === mac);
  return byMac.length > 0 ? byMac : interfaces.filter((i) => i.name !== 'lo' && !CONTAINER_BRIDGE.test(i.name));
}

/**
 * The interface carrying net0's MAC when the guest reports it, else every
 * interface but loopback and container bridges; the first global IPv4,
 * else the first global IPv6.
 */
export function pickAddress(interfaces: AgentInterface[], net0: string | undefined): string | undefined {
  const candidates = candidatesOf(interfaces, net0);
  for (const family of ['ipv4', 'ipv6'] as const) {
    for (const iface of candidates) {
      const first = addressesOf(iface, family)[0];
      if (first !== undefined) return first;
    }
  }
  return undefined;
}

/**
 * The lease's address (SPEC 29) when the guest reports it on the interface
 * pickAddress looks at, whatever its range: a pool in 127.0.0.0/8 (the
 * tests' and the simulator's) is not a "usable" address to pickAddress.
 */
export function leasedAddressIn(interfaces: AgentInterface[], net0: string | undefined, leased: string): string | undefined {
  return everyAddressOn(interfaces, net0).includes(leased) ? leased : undefined;
}

/** Every address the guest reports on those interfaces, for a failure's words: `10.0.0.5, fe80::1`, or `no address`. */
export function reportedAddresses(interfaces: AgentInterface[], net0: string | undefined): string {
  const reported = everyAddressOn(interfaces, net0);
  return reported.length === 0 ? 'no address' : reported.join(', ');
}

function everyAddressOn(interfaces: AgentInterface[], net0: string | undefined): string[] {
  return candidatesOf(interfaces, net0).flatMap((iface) => (iface['ip-addresses'] ?? []).map((a) => a['ip-address']));
}
