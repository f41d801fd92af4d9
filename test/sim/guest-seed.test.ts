// SPEC 29: what the simulated guest takes from its seed's files, as
// cloud-init's NoCloud datasource would (the file level; guest-boot.test.ts
// covers the boot over HTTP).
import { expect } from 'chai';
import { seedFromFiles } from '../../src/sim/guest/seed.js';

const MAC = 'bc:24:11:0a:0b:0c';
const META = 'instance-id: "vm-a"\nlocal-hostname: "vm-a"\n';

function files(entries: Record<string, string>): Map<string, Buffer> {
  return new Map(Object.entries(entries).map(([name, text]) => [name, Buffer.from(text)]));
}

const read = (entries: Record<string, string>) => seedFromFiles('proxy-seeds:iso/vm-a-seed.iso', files({ 'meta-data': META, 'user-data': '#cloud-config\n{}\n', ...entries }), MAC);

describe('simulated guest: reading the seed (SPEC 29)', function () {
  it('takes instance-id and local-hostname from meta-data', function () {
    expect(read({})).to.include({ instanceId: 'vm-a', hostname: 'vm-a' });
  });

  it('does not take a seed without user-data or meta-data, as NoCloud requires both', function () {
    const seed = seedFromFiles('v', files({ 'meta-data': META, 'network-config': `version: 2\nethernets:\n  e:\n    match: {macaddress: "${MAC}"}\n    addresses: [127.77.0.9/24]\n` }), MAC);
    expect(seed.staticAddress).to.equal(undefined);
    expect(seed.problems).to.deep.equal(['the seed lacks meta-data or user-data; cloud-init does not take it']);
  });

  it('does not take a seed whose meta-data is not YAML: no phone home, DHCP', function () {
    const seed = seedFromFiles('v', files({ 'meta-data': 'instance-id: [\n', 'user-data': '#cloud-config\nphone_home: {url: "http://127.0.0.1:9/x"}\n' }), MAC);
    expect(seed.phoneHome).to.equal(undefined);
    expect(seed.problems[0]).to.match(/^meta-data: not a YAML map/);
  });

  it('reads a version 2 network-config under a top-level network key, the MAC matched in any case', function () {
    const config = `network:\n  version: 2\n  ethernets:\n    id0:\n      match:\n        macaddress: "${MAC.toUpperCase()}"\n      addresses:\n        - "fd00::5/64"\n        - 127.77.0.9/28\n`;
    expect(read({ 'network-config': config }).staticAddress).to.deep.equal({ address: '127.77.0.9', prefixLength: 28 });
  });

  it("takes an ethernet with no match by the guest's interface name, ens18", function () {
    const config = 'version: 2\nethernets:\n  ens18:\n    addresses: [127.77.0.10/24]\n';
    expect(read({ 'network-config': config }).staticAddress).to.deep.equal({ address: '127.77.0.10', prefixLength: 24 });
  });

  it("reads an unquoted all-digit MAC as YAML 1.1 does, as a number that matches nothing (cloud-init's docs ask for quoted MACs)", function () {
    const digits = '52:54:00:12:34:56';
    const config = `version: 2\nethernets:\n  e:\n    match:\n      macaddress: ${digits}\n    addresses: [127.77.0.11/24]\n`;
    expect(seedFromFiles('v', files({ 'meta-data': META, 'user-data': '#cloud-config\n{}\n', 'network-config': config }), digits).staticAddress).to.equal(undefined);
  });

  it('gives DHCP for a dhcp4 network-config or a version it does not know', function () {
    expect(read({ 'network-config': `version: 2\nethernets:\n  e:\n    match: {macaddress: "${MAC}"}\n    dhcp4: true\n` }).staticAddress).to.equal(undefined);
    expect(read({ 'network-config': 'version: 3\n' }).staticAddress).to.equal(undefined);
  });

  it("takes phone_home's url, post and tries, 10 tries and post all by default", function () {
    const vendor = '#cloud-config\nphone_home:\n  url: "http://127.0.0.1:9/v1/ready/t"\n';
    expect(read({ 'vendor-data': vendor }).phoneHome).to.deep.equal({
      url: 'http://127.0.0.1:9/v1/ready/t',
      post: ['pub_key_rsa', 'pub_key_ecdsa', 'pub_key_ed25519', 'instance_id', 'hostname', 'fqdn'],
      tries: 10,
    });
  });

  it('reads no phone_home from a user-data that is not a cloud-config (a script)', function () {
    const seed = read({ 'user-data': '#!/bin/sh\n# phone_home:\n#   url: http://127.0.0.1:9/\n' });
    expect(seed.phoneHome).to.equal(undefined);
  });

  it('says why it skipped a phone_home without url, or a cloud-config that is not YAML', function () {
    expect(read({ 'vendor-data': '#cloud-config\nphone_home:\n  post: all\n' }).problems).to.deep.equal(['vendor-data: phone_home has no url; cloud-init skips the module']);
    expect(read({ 'user-data': '#cloud-config\nphone_home: [\n' }).problems[0]).to.match(/^user-data: not YAML/);
  });
});
