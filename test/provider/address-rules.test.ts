// SPEC 10: the address rules one by one, at their edges: which IPv4 and
// IPv6 addresses count as global, which interface names are container
// bridges (only as a prefix), and that loopback is never a candidate.
// Added for the mutants of src/provider/address.ts that no test caught
// (issue 19).
import { expect } from 'chai';
import { pickAddress } from '../../src/provider/address.js';
import type { AgentInterface } from '../../src/proxmox/api.js';

function iface(name: string, ...addresses: string[]): AgentInterface {
  return {
    name,
    'ip-addresses': addresses.map((ip) => ({ 'ip-address': ip, 'ip-address-type': ip.includes(':') ? 'ipv6' : 'ipv4' })),
  };
}

/** The address picked from one interface holding `ip`, then the fallback 10.9.9.9 on a later one. */
function pickedAmong(ip: string): string | undefined {
  return pickAddress([iface('eth0', ip), iface('eth1', '10.9.9.9')], undefined);
}

describe('address rules at their edges (SPEC 10)', () => {
  it('refuses 127.*, 0.* and 169.254.* IPv4 addresses', () => {
    for (const ip of ['127.0.0.1', '127.1.2.3', '0.0.0.0', '0.1.2.3', '169.254.0.1', '169.254.255.254']) {
      expect(pickedAmong(ip), ip).to.equal('10.9.9.9');
    }
  });

  it('takes every other IPv4: 169.* outside 169.254, *.254.*, 126.*, 1.*', () => {
    for (const ip of ['169.1.2.3', '169.255.0.1', '10.254.0.1', '192.254.3.4', '126.0.0.1', '1.2.3.4']) {
      expect(pickedAmong(ip), ip).to.equal(ip);
    }
  });

  it('skips an "ipv4" entry that is not an IPv4 address', () => {
    expect(pickedAmong('10.1.2')).to.equal('10.9.9.9');
    expect(pickedAmong('not-an-address')).to.equal('10.9.9.9');
  });

  it('refuses the IPv6 loopback and unspecified addresses, with or without a zone', () => {
    const only = (ip: string): string | undefined => pickAddress([iface('eth0', ip), iface('eth1', '2001:db8::9')], undefined);
    for (const ip of ['::1', '::', 'fe80::1', 'FE80::1', 'fe80::1%eth0', 'febf::1']) expect(only(ip), ip).to.equal('2001:db8::9');
  });

  it('takes an IPv6 address that merely contains fe80: further in (link-local is a prefix)', () => {
    expect(pickAddress([iface('eth0', '2001:db8::fe80:1')], undefined)).to.equal('2001:db8::fe80:1');
    expect(pickAddress([iface('eth0', 'fec0::1')], undefined)).to.equal('fec0::1');
  });

  it('skips container bridges only by prefix: an interface merely containing docker, veth or br- is a candidate', () => {
    for (const name of ['lan-docker', 'myveth0', 'vmbr-0']) {
      expect(pickAddress([iface(name, '10.0.0.7')], undefined), name).to.equal('10.0.0.7');
    }
    for (const name of ['docker0', 'veth1a2b', 'br-1a2b']) {
      expect(pickAddress([iface(name, '10.0.0.7')], undefined), name).to.equal(undefined);
    }
  });

  it('never takes the loopback interface, even when it carries a global address', () => {
    expect(pickAddress([iface('lo', '192.0.2.1'), iface('eth0', '10.0.0.5')], undefined)).to.equal('10.0.0.5');
    expect(pickAddress([iface('lo', '192.0.2.1')], undefined)).to.equal(undefined);
  });
});
