// The static IPv4 address a seed's network-config gives the interface with
// net0's MAC (SPEC 29), in either of cloud-init's forms: version 2
// (netplan: `ethernets.<id>.match.macaddress` and `addresses`) or version
// 1 (`config: [{type: physical, mac_address, subnets: [{type: static,
// address, netmask?}]}]`), with or without a top-level `network:` key.
import { ipv4ToNumber } from '../../addresses/ipv4.js';
import type { StaticAddress } from './types.js';
import { isMap } from './yaml.js';

/** `a.b.c.d/len`, or `a.b.c.d` with a dotted netmask beside it; undefined when it is neither. */
function ipv4WithPrefix(address: unknown, netmask?: unknown): StaticAddress | undefined {
  if (typeof address !== 'string') return undefined;
  const [ip = '', length, ...rest] = address.split('/');
  if (rest.length > 0 || ipv4ToNumber(ip) === undefined) return undefined;
  if (length !== undefined) return /^\d{1,2}$/.test(length) && Number(length) <= 32 ? { address: ip, prefixLength: Number(length) } : undefined;
  const mask = typeof netmask === 'string' ? ipv4ToNumber(netmask) : undefined;
  if (mask === undefined) return undefined;
  const bits = mask.toString(2).padStart(32, '0');
  return /^1*0*$/.test(bits) ? { address: ip, prefixLength: bits.indexOf('0') < 0 ? 32 : bits.indexOf('0') } : undefined;
}

function sameMac(value: unknown, mac: string): boolean {
  return typeof value === 'string' && value.toLowerCase() === mac.toLowerCase();
}

/** netplan: the ethernet that matches the MAC (or, without a match, is named like the guest's NIC) and its first IPv4 address. */
function fromVersion2(ethernets: unknown, mac: string, nicName: string): StaticAddress | undefined {
  if (!isMap(ethernets)) return undefined;
  for (const [id, eth] of Object.entries(ethernets)) {
    if (!isMap(eth)) continue;
    const match = eth.match;
    const matches = isMap(match) ? sameMac(match.macaddress, mac) : id === nicName;
    if (!matches || !Array.isArray(eth.addresses)) continue;
    for (const address of eth.addresses) {
      const found = ipv4WithPrefix(address);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Version 1: the physical entry with the MAC and its first static IPv4 subnet. */
function fromVersion1(config: unknown, mac: string): StaticAddress | undefined {
  if (!Array.isArray(config)) return undefined;
  for (const entry of config) {
    if (!isMap(entry) || entry.type !== 'physical' || !sameMac(entry.mac_address, mac) || !Array.isArray(entry.subnets)) continue;
    for (const subnet of entry.subnets) {
      if (!isMap(subnet) || (subnet.type !== 'static' && subnet.type !== 'static4')) continue;
      const found = ipv4WithPrefix(subnet.address, subnet.netmask);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * The static IPv4 address the network-config sets on the NIC with `mac`
 * (the guest calls it `nicName`), or undefined: the guest then takes a
 * DHCP address, as it would with this config.
 */
export function staticAddressOf(doc: unknown, mac: string, nicName: string): StaticAddress | undefined {
  const network = isMap(doc) && isMap(doc.network) ? doc.network : doc;
  if (!isMap(network)) return undefined;
  if (network.version === 2) return fromVersion2(network.ethernets, mac, nicName);
  if (network.version === 1) return fromVersion1(network.config, mac);
  return undefined;
}
