// SPEC 10: the address from the guest agent (F21).
import { expect } from 'chai';
import { pickAddress } from '../../src/provider/address.js';
import { fixtureData } from '../support/fixtures.js';
import type { AgentInterface } from '../../src/proxmox/api.js';

const plain = fixtureData<{ result: AgentInterface[] }>('agent_interfaces').result;
const docker = fixtureData<{ result: AgentInterface[] }>('agent_interfaces_docker').result;
const NET0 = 'virtio=BC:24:11:EE:48:83,bridge=vmbr0';

describe('address (SPEC 10)', () => {
  it('takes the global IPv4 of the guest F21 reported, never loopback', () => {
    expect(pickAddress(plain, NET0)).to.equal('192.168.0.150');
  });

  it("uses only the interface with net0's MAC when the guest reports it, skipping its link-local IPv4", () => {
    expect(pickAddress(docker, NET0)).to.equal('192.168.4.147');
  });

  it('without that MAC, skips docker*, veth* and loopback and takes the first global IPv4', () => {
    expect(pickAddress(docker, 'virtio=BC:24:11:00:00:99,bridge=vmbr0')).to.equal('10.20.0.15');
    expect(pickAddress(docker, undefined)).to.equal('10.20.0.15');
  });

  it('skips br-* bridges', () => {
    const ifaces: AgentInterface[] = [
      { name: 'br-1a2b', 'ip-addresses': [{ 'ip-address': '172.18.0.1', 'ip-address-type': 'ipv4' }] },
      { name: 'eth0', 'ip-addresses': [{ 'ip-address': '10.0.0.5', 'ip-address-type': 'ipv4' }] },
    ];
    expect(pickAddress(ifaces, undefined)).to.equal('10.0.0.5');
  });

  it('falls back to the first global IPv6 when there is no IPv4, never link-local', () => {
    const ifaces: AgentInterface[] = [
      { name: 'lo', 'ip-addresses': [{ 'ip-address': '::1', 'ip-address-type': 'ipv6' }] },
      {
        name: 'ens18',
        'hardware-address': 'bc:24:11:ee:48:83',
        'ip-addresses': [
          { 'ip-address': 'fe80::be24:11ff:feee:4883', 'ip-address-type': 'ipv6' },
          { 'ip-address': '2001:db8:4::147', 'ip-address-type': 'ipv6' },
        ],
      },
    ];
    expect(pickAddress(ifaces, NET0)).to.equal('2001:db8:4::147');
  });

  it('prefers IPv4 on any candidate interface over an earlier IPv6', () => {
    const ifaces: AgentInterface[] = [
      { name: 'ens18', 'ip-addresses': [{ 'ip-address': '2001:db8::1', 'ip-address-type': 'ipv6' }] },
      { name: 'ens19', 'ip-addresses': [{ 'ip-address': '10.1.1.1', 'ip-address-type': 'ipv4' }] },
    ];
    expect(pickAddress(ifaces, undefined)).to.equal('10.1.1.1');
  });

  it('answers nothing when only link-local and loopback addresses exist', () => {
    const ifaces: AgentInterface[] = [
      { name: 'lo', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4' }] },
      {
        name: 'ens18',
        'ip-addresses': [
          { 'ip-address': '169.254.3.4', 'ip-address-type': 'ipv4' },
          { 'ip-address': 'fe80::1', 'ip-address-type': 'ipv6' },
        ],
      },
    ];
    expect(pickAddress(ifaces, undefined)).to.equal(undefined);
  });
});
