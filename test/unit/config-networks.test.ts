// SPEC 29, SPEC 7 (issue 31): proxmox.networks, the address pools. An
// entry gets its defaults (no DNS, no exclusions, a 600 s cooldown); each
// bad field stops the load naming the entry and the field; two pools on
// one network or under one name are refused.
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { loadError } from '../support/config-error.js';

const LAN = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24' };

function withPools(...pools: unknown[]): Record<string, string> {
  return { PROXMOX_NETWORKS: JSON.stringify(pools) };
}

describe('config proxmox.networks (SPEC 29, SPEC 7)', () => {
  it('none by default: every network keeps DHCP', () => {
    expect(loadConfig({ env: {} }).proxmox.networks).to.deep.equal([]);
  });

  it('fills dns, exclude and reuseCooldownSeconds, and keeps what is given, from the environment or from code', () => {
    const full = { name: 'vlan20', bridge: 'vmbr0', vlanTag: 20, cidr: '127.78.0.0/16', gateway: '127.78.0.1', dns: ['127.0.0.53'], first: '127.78.1.0', last: '127.78.1.255', exclude: ['127.78.1.7'], reuseCooldownSeconds: 0 };
    expect(loadConfig({ env: withPools(LAN, full) }).proxmox.networks).to.deep.equal([{ ...LAN, dns: [], exclude: [], reuseCooldownSeconds: 600 }, full]);
    expect(loadConfig({ env: {}, overrides: { proxmox: { networks: [LAN] } } }).proxmox.networks).to.deep.equal([{ ...LAN, dns: [], exclude: [], reuseCooldownSeconds: 600 }]);
  });

  const refused: [string, unknown[], RegExp][] = [
    ['not a list', ['x'], /proxmox\.networks: entry 0: must be an object \{name, bridge, vlanTag\?, cidr/],
    ['an unknown key', [{ ...LAN, vlan: 3 }], /entry 0 \(lan\): has unknown key "vlan"; allowed: name, bridge/],
    ['a name that is no image-like name', [{ ...LAN, name: 'Lan A' }], /entry 0 \(Lan A\): name must be 1 to 63 of a-z/],
    ['no name', [{ bridge: 'vmbr1', cidr: '127.77.0.0/24' }], /entry 0: name must be/],
    ['no bridge', [{ name: 'lan', cidr: '127.77.0.0/24' }], /entry 0 \(lan\): bridge is required and must be a bridge name/],
    ['a bad bridge', [{ ...LAN, bridge: '1bridge' }], /entry 0 \(lan\): bridge is required and must be a bridge name/],
    ['a VLAN tag of 0', [{ ...LAN, vlanTag: 0 }], /entry 0 \(lan\): vlanTag must be an integer from 1 to 4094/],
    ['a VLAN tag of 4095', [{ ...LAN, vlanTag: 4095 }], /entry 0 \(lan\): vlanTag must be an integer from 1 to 4094/],
    ['no cidr', [{ name: 'lan', bridge: 'vmbr1' }], /entry 0 \(lan\): cidr must be an IPv4 subnet such as "10\.0\.0\.0\/24", got undefined/],
    ['a cidr that is no subnet', [{ ...LAN, cidr: '127.77.0.0' }], /entry 0 \(lan\): cidr must be an IPv4 subnet/],
    ['a cidr with an octet over 255', [{ ...LAN, cidr: '127.77.0.256/24' }], /entry 0 \(lan\): cidr must be an IPv4 subnet/],
    ['a /31', [{ ...LAN, cidr: '127.77.0.0/31' }], /entry 0 \(lan\): cidr 127\.77\.0\.0\/31 has prefix length 31; it must be from 8 to 30/],
    ['a /7', [{ ...LAN, cidr: '126.0.0.0/7' }], /has prefix length 7; it must be from 8 to 30/],
    ['a gateway that is no address', [{ ...LAN, gateway: 'router' }], /entry 0 \(lan\): gateway must be an IPv4 address in dotted-quad form/],
    ['a gateway outside the cidr', [{ ...LAN, gateway: '127.76.0.1' }], /entry 0 \(lan\): gateway 127\.76\.0\.1 is not inside the cidr/],
    ['dns that is no list', [{ ...LAN, dns: '127.0.0.53' }], /entry 0 \(lan\): dns must be a list of IPv4 addresses/],
    ['a dns entry that is no address', [{ ...LAN, dns: ['127.0.0.53', 'dns.example'] }], /entry 0 \(lan\): dns\[1\] must be an IPv4 address/],
    ['a first that is no address', [{ ...LAN, first: '127.77.0' }], /entry 0 \(lan\): first must be an IPv4 address/],
    ['a first outside the cidr', [{ ...LAN, first: '127.77.1.1' }], /entry 0 \(lan\): first 127\.77\.1\.1 is not inside the cidr/],
    ['a last outside the cidr', [{ ...LAN, last: '127.78.0.1' }], /entry 0 \(lan\): last 127\.78\.0\.1 is not inside the cidr/],
    ['first after last', [{ ...LAN, first: '127.77.0.50', last: '127.77.0.40' }], /entry 0 \(lan\): first \(127\.77\.0\.50\) is after last \(127\.77\.0\.40\)/],
    ['exclude that is no list', [{ ...LAN, exclude: '127.77.0.9' }], /entry 0 \(lan\): exclude must be a list of IPv4 addresses/],
    ['an excluded address outside the cidr', [{ ...LAN, exclude: ['127.77.0.9', '127.99.0.9'] }], /entry 0 \(lan\): exclude\[1\] 127\.99\.0\.9 is not inside the cidr/],
    ['a negative cooldown', [{ ...LAN, reuseCooldownSeconds: -1 }], /entry 0 \(lan\): reuseCooldownSeconds must be a whole number of seconds from 0 to 31536000/],
    ['a cooldown that is no number', [{ ...LAN, reuseCooldownSeconds: '600' }], /reuseCooldownSeconds must be a whole number/],
    ['a range of more than 65536 addresses', [{ ...LAN, cidr: '127.0.0.0/8' }], /entry 0 \(lan\): the range from first to last holds 16777214 addresses, more than 65536: give first and last to narrow it/],
    ['two pools of one name', [LAN, { ...LAN, bridge: 'vmbr2' }], /entries 0 and 1 are both named "lan"; each pool needs a name of its own/],
    ['two pools on one bridge without a tag', [LAN, { ...LAN, name: 'lan2', cidr: '127.78.0.0/24' }], /entries 0 \(lan\) and 1 \(lan2\) are both for bridge vmbr1 untagged; a network has at most one pool/],
    ['two pools on one bridge and tag', [{ ...LAN, vlanTag: 5 }, { ...LAN, name: 'lan2', vlanTag: 5 }], /are both for bridge vmbr1 VLAN 5/],
  ];
  for (const [what, pools, message] of refused) {
    it(`refuses ${what}, naming the entry and field`, () => {
      expect(loadError(withPools(...pools))).to.match(message);
    });
  }

  it('takes one pool per network: the same bridge untagged and tagged, or another tag, are other networks', () => {
    const pools = [LAN, { ...LAN, name: 'lan5', vlanTag: 5, cidr: '127.78.0.0/24' }, { ...LAN, name: 'lan6', vlanTag: 6, cidr: '127.79.0.0/24' }];
    expect(loadConfig({ env: withPools(...pools) }).proxmox.networks.map((pool) => pool.name)).to.deep.equal(['lan', 'lan5', 'lan6']);
  });

  it('takes a /16 whole (65534 addresses) and a /8 narrowed by first and last', () => {
    const wide = [{ ...LAN, cidr: '127.78.0.0/16' }, { ...LAN, name: 'big', bridge: 'vmbr2', cidr: '127.0.0.0/8', first: '127.90.0.0', last: '127.90.255.255' }];
    expect(loadConfig({ env: withPools(...wide) }).proxmox.networks).to.have.length(2);
  });
});
