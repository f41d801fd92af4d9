// SPEC 20: what cloud-init's NoCloud datasource does once it has mounted
// the seed: pathprefix2dict with user-data and meta-data required,
// vendor-data and network-config optional, then _merge_new_seed. Run here,
// with Debian's cloud-init, on the files xorriso extracts by their Rock
// Ridge names (the kernel mount itself is in kernel-mount.test.ts).
import { expect } from 'chai';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSeed, type SeedInput } from '../../src/nocloud/seed.js';
import { fixtureKey } from '../support/ssh-keys.js';
import { runTool, withTempDir, writeSource } from './tools.js';

const NOCLOUD_SCRIPT = `
import json, sys
from cloudinit import util
from cloudinit.sources.DataSourceNoCloud import _merge_new_seed
seeded = util.pathprefix2dict(sys.argv[1], required=["user-data", "meta-data"], optional=["vendor-data", "network-config"])
data = _merge_new_seed({"meta-data": {}, "user-data": "", "vendor-data": "", "network-config": None}, seeded)
text = lambda b: b.decode("utf-8") if isinstance(b, bytes) else b
print(json.dumps({"meta": data["meta-data"], "user": text(data["user-data"]), "vendor": text(data["vendor-data"]), "network": data["network-config"]}))
`;

interface NoCloudView {
  meta: Record<string, unknown>;
  user: string;
  vendor: string;
  network: unknown;
}

async function seedDir(input: SeedInput, work: string): Promise<string> {
  const iso = join(work, `${input.name}.iso`);
  await writeSource(buildSeed(input), iso);
  const dir = join(work, input.name);
  await mkdir(dir);
  const extracted = runTool('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', '/', dir]);
  if (extracted.status !== 0) throw new Error(`xorriso could not extract ${iso}: ${extracted.stderr}`);
  return dir;
}

function readAsNoCloud(dir: string): { view?: NoCloudView; error?: string } {
  const result = runTool('/usr/bin/python3', ['-c', NOCLOUD_SCRIPT, dir]);
  if (result.stderr.includes("No module named 'cloudinit'")) throw new Error('cloud-init is not installed: install the Debian package cloud-init');
  if (result.status !== 0) return { error: result.stderr };
  return { view: JSON.parse(result.stdout.toString('utf8')) as NoCloudView };
}

describe('seed read as cloud-init NoCloud reads a mounted seed (SPEC 20)', function () {
  let work = '';
  let cleanup: () => Promise<void> = () => Promise.resolve();
  before(async function () {
    ({ dir: work, cleanup } = await withTempDir('seed-nocloud-'));
  });
  after(() => cleanup());

  it('finds instance-id and local-hostname, the user-data, vendor-data and the parsed network-config', async function () {
    const input: SeedInput = {
      name: 'web-01',
      userData: '#cloud-config\nhostname: web-01\n',
      networkConfig: 'version: 2\nethernets:\n  eth0:\n    dhcp4: true\n',
      installGuestAgent: true,
      joliet: false,
    };
    const { view, error } = readAsNoCloud(await seedDir(input, work));
    expect(error).to.equal(undefined);
    expect(view?.meta).to.deep.equal({ 'instance-id': 'web-01', 'local-hostname': 'web-01' });
    expect(view?.user).to.equal(input.userData);
    expect(view?.vendor).to.match(/^#cloud-config\n/);
    expect(view?.network).to.deep.equal({ version: 2, ethernets: { eth0: { dhcp4: true } } });
  });

  it('finds the sshKeys as meta-data public-keys, the user-data script untouched (SPEC 27)', async function () {
    const sshKeys = [fixtureKey('ed25519.pub'), fixtureKey('ecdsa-384.pub')];
    const userData = '#!/bin/sh\necho from the job\n';
    const { view, error } = readAsNoCloud(await seedDir({ name: 'with-keys', userData, sshKeys, installGuestAgent: false, joliet: false }, work));
    expect(error).to.equal(undefined);
    expect(view?.meta).to.deep.equal({ 'instance-id': 'with-keys', 'local-hostname': 'with-keys', 'public-keys': sshKeys });
    expect(view?.user).to.equal(userData);
    expect(view?.vendor).to.equal('');
  });

  it('keeps a name that YAML would read as a number a string (a DNS label may be all digits)', async function () {
    const { view } = readAsNoCloud(await seedDir({ name: '0123', installGuestAgent: false, joliet: true }, work));
    expect(view?.meta).to.deep.equal({ 'instance-id': '0123', 'local-hostname': '0123' });
  });

  it('refuses a seed without user-data, so the checks above can fail', async function () {
    const dir = await seedDir({ name: 'incomplete', installGuestAgent: true, joliet: false }, work);
    await rm(join(dir, 'user-data'));
    expect(readAsNoCloud(dir).error).to.match(/Missing required files: user-data/);
  });
});
