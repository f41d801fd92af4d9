// The seed's network-config for an address lease (SPEC 29): cloud-init's
// network config version 2, the lease's address, prefix length, gateway
// and DNS set statically on the interface that has net0's MAC (matched by
// MAC, so the guest's own name for it does not matter; cloud-init names
// it `net0`, as Proxmox's own cloud-init names it `eth0`). The default
// route is `to: 0.0.0.0/0`, not `to: default`: Debian 12's cloud-init
// (22.4) refuses `default` when it renders ENI or networkd. Values are
// double-quoted (yaml-quote.ts).
import type { AddressLease } from '../addresses/types.js';
import { yamlQuoted } from './yaml-quote.js';

export type StaticAddress = Pick<AddressLease, 'address' | 'prefixLength' | 'gateway' | 'dns'>;

/** The network-config text; `mac` is net0's (any case: written lowercased). */
export function staticNetworkConfig(lease: StaticAddress, mac: string): string {
  const lines = [
    'version: 2',
    'ethernets:',
    '  net0:',
    '    match:',
    `      macaddress: ${yamlQuoted(mac.toLowerCase())}`,
    '    addresses:',
    `      - ${yamlQuoted(`${lease.address}/${lease.prefixLength}`)}`,
  ];
  if (lease.gateway !== undefined) lines.push('    routes:', '      - to: "0.0.0.0/0"', `        via: ${yamlQuoted(lease.gateway)}`);
  if (lease.dns.length > 0) lines.push('    nameservers:', '      addresses:', ...lease.dns.map((server) => `        - ${yamlQuoted(server)}`));
  return `${lines.join('\n')}\n`;
}
