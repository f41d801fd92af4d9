// SPEC 29 (issue 31): the seed's network-config for an address lease: the
// exact text, its shape as PyYAML reads it, and what Debian's cloud-init
// renders from it (ENI for Debian 12, networkd, netplan): the lease's
// address, gateway and DNS on the interface with net0's MAC.
import { expect } from 'chai';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { staticNetworkConfig, type StaticAddress } from '../../src/nocloud/network-config.js';
import { mustRun, withTempDir } from './tools.js';

const LEASE: StaticAddress = { address: '127.77.0.5', prefixLength: 24, gateway: '127.77.0.1', dns: ['127.77.0.53', '127.77.0.54'] };
const MAC = 'BC:24:11:AA:0B:CC';

/** The text as cloud-init's PyYAML reads it, as JSON. */
function asPyYaml(text: string): unknown {
  const script = 'import sys, yaml, json; print(json.dumps(yaml.safe_load(sys.stdin.read())))';
  return JSON.parse(mustRun('/usr/bin/python3', ['-c', script], text).toString('utf8'));
}

/** Every file cloud-init's renderer wrote, concatenated. */
async function rendered(text: string, output: 'eni' | 'networkd' | 'netplan'): Promise<string> {
  const { dir, cleanup } = await withTempDir('network-config-');
  try {
    const input = join(dir, 'network-config');
    await writeFile(input, text);
    mustRun('cloud-init', ['devel', 'net-convert', '-p', input, '-k', 'yaml', '-d', join(dir, 'out'), '-D', 'debian', '-O', output]);
    const files = await readdir(join(dir, 'out'), { recursive: true, withFileTypes: true });
    const texts = await Promise.all(files.filter((f) => f.isFile()).map((f) => readFile(join(f.parentPath, f.name), 'utf8')));
    return texts.join('\n');
  } finally {
    await cleanup();
  }
}

describe("the seed's static network-config (SPEC 29, issue 31)", () => {
  it('is version 2 with the address, a default route by the gateway and the DNS servers on the interface matched by net0\'s MAC, lowercased', () => {
    expect(staticNetworkConfig(LEASE, MAC)).to.equal(
      [
        'version: 2',
        'ethernets:',
        '  net0:',
        '    match:',
        '      macaddress: "bc:24:11:aa:0b:cc"',
        '    addresses:',
        '      - "127.77.0.5/24"',
        '    routes:',
        '      - to: "0.0.0.0/0"',
        '        via: "127.77.0.1"',
        '    nameservers:',
        '      addresses:',
        '        - "127.77.0.53"',
        '        - "127.77.0.54"',
        '',
      ].join('\n'),
    );
  });

  it('has no routes without a gateway and no nameservers without DNS', () => {
    expect(staticNetworkConfig({ address: '127.77.0.9', prefixLength: 28, dns: [] }, MAC)).to.equal(
      'version: 2\nethernets:\n  net0:\n    match:\n      macaddress: "bc:24:11:aa:0b:cc"\n    addresses:\n      - "127.77.0.9/28"\n',
    );
  });

  it('reads as cloud-init network config version 2 in PyYAML: every value a string, the version a number', () => {
    expect(asPyYaml(staticNetworkConfig(LEASE, MAC))).to.deep.equal({
      version: 2,
      ethernets: {
        net0: {
          match: { macaddress: 'bc:24:11:aa:0b:cc' },
          addresses: ['127.77.0.5/24'],
          routes: [{ to: '0.0.0.0/0', via: '127.77.0.1' }],
          nameservers: { addresses: ['127.77.0.53', '127.77.0.54'] },
        },
      },
    });
  });

  it("Debian's cloud-init renders it for ifupdown (Debian 12): static address, default gateway, DNS, the MAC's interface", async () => {
    const eni = await rendered(staticNetworkConfig(LEASE, MAC), 'eni');
    expect(eni).to.contain('ATTR{address}=="bc:24:11:aa:0b:cc", NAME="net0"');
    expect(eni).to.contain('iface net0 inet static');
    expect(eni).to.contain('address 127.77.0.5/24');
    expect(eni).to.contain('route add default gw 127.77.0.1');
    expect(eni).to.contain('dns-nameservers 127.77.0.53 127.77.0.54');
  });

  it("Debian's cloud-init renders it for networkd and netplan too", async () => {
    const text = staticNetworkConfig(LEASE, MAC);
    const networkd = await rendered(text, 'networkd');
    expect(networkd).to.contain('MACAddress=bc:24:11:aa:0b:cc');
    expect(networkd).to.contain('Address=127.77.0.5/24');
    expect(networkd).to.match(/Destination=0\.0\.0\.0\/0\s+Gateway=127\.77\.0\.1/);
    expect(networkd).to.contain('DNS=127.77.0.53 127.77.0.54');
    const netplan = await rendered(text, 'netplan');
    expect(netplan).to.contain('macaddress: bc:24:11:aa:0b:cc');
    expect(netplan).to.contain('- 127.77.0.5/24');
  });
});
