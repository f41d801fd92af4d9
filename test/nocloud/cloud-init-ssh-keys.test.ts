// SPEC 27: the default user accepts the job's sshKeys whatever user-data
// the job brings. Run with Debian's cloud-init on the files xorriso
// extracts: its NoCloud datasource reads the seed directory, user-data and
// vendor-data are merged in cloud-init's order (user-data first,
// helpers.ConfigMerger) over the image's `users: [default]`, and cc_ssh's own handle() collects the keys, with
// apply_credentials (the write to ~/.ssh) replaced by a print and the host
// key steps turned off, so nothing on this machine is touched.
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSeed, type SeedInput } from '../../src/nocloud/seed.js';
import { fixtureKey } from '../support/ssh-keys.js';
import { runTool, withTempDir, writeSource } from './tools.js';

const SSH_SCRIPT = `
import json, logging, os, sys, tempfile
from cloudinit import cloud, distros, helpers, util
from cloudinit.config import cc_ssh
from cloudinit.sources.DataSourceNoCloud import DataSourceNoCloud
work = tempfile.mkdtemp()
paths = helpers.Paths({"cloud_dir": work, "run_dir": work})
os.makedirs(paths.seed_dir)
os.symlink(sys.argv[1], os.path.join(paths.seed_dir, "nocloud"))
system = {"default_user": {"name": "debian"}}
sys_cfg = {"system_info": system, "datasource": {"NoCloud": {"fs_label": None}}}
distro = distros.fetch("debian")("debian", system, paths)
ds = DataSourceNoCloud(sys_cfg, distro, paths)
assert ds.get_data(), "NoCloud found no seed"
def cloud_config(raw):
    text = raw.decode("utf-8") if isinstance(raw, bytes) else (raw or "")
    return util.load_yaml(text) if text.startswith("#cloud-config") else {}
# Lowest: the image's /etc/cloud/cloud.cfg, whose "users: [default]" creates the default user.
cfg = util.mergemanydict([cloud_config(ds.userdata_raw), cloud_config(ds.vendordata_raw), {"users": ["default"]}])
cfg.update({"ssh_deletekeys": False, "ssh_genkeytypes": [], "ssh_publish_hostkeys": {"enabled": False}})
seen = {}
def capture(keys, user, disable_root, opts):
    seen.update(user=user, keys=sorted(set(keys)))
cc_ssh.apply_credentials = capture
cc_ssh.handle("ssh", cfg, cloud.Cloud(ds, paths, sys_cfg, distro, None), logging.getLogger("ssh"), [])
print(json.dumps(seen))
`;

interface Credentials {
  user?: string | null;
  keys?: string[];
}

const keyA = fixtureKey('ed25519.pub');
const keyB = fixtureKey('rsa-2048.pub');
const userKey = fixtureKey('ecdsa-256.pub');

describe("seed sshKeys as cloud-init's ssh module applies them (SPEC 27)", function () {
  let work = '';
  let cleanup: () => Promise<void> = () => Promise.resolve();
  before(async function () {
    ({ dir: work, cleanup } = await withTempDir('seed-ssh-'));
  });
  after(() => cleanup());

  async function credentials(input: Omit<SeedInput, 'installGuestAgent' | 'joliet'>): Promise<Credentials> {
    const iso = join(work, `${input.name}.iso`);
    await writeSource(buildSeed({ ...input, installGuestAgent: true, joliet: false }), iso);
    const dir = join(work, input.name);
    await mkdir(dir);
    const extracted = runTool('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', '/', dir]);
    if (extracted.status !== 0) throw new Error(`xorriso could not extract ${iso}: ${extracted.stderr}`);
    const result = runTool('/usr/bin/python3', ['-c', SSH_SCRIPT, dir]);
    if (result.stderr.includes("No module named 'cloudinit'")) throw new Error('cloud-init is not installed: install the Debian package cloud-init');
    expect(result.status, result.stderr).to.equal(0);
    return JSON.parse(result.stdout.toString('utf8')) as Credentials;
  }

  it('gives both keys to the default user when the job has no user-data', async function () {
    expect(await credentials({ name: 'keys-alone', sshKeys: [keyA, keyB] })).to.deep.equal({ user: 'debian', keys: [keyA, keyB].sort() });
  });

  it('gives them with a user-data script, which cloud-config does not read', async function () {
    const got = await credentials({ name: 'keys-script', sshKeys: [keyA, keyB], userData: '#!/bin/sh\necho hello > /tmp/hello\n' });
    expect(got).to.deep.equal({ user: 'debian', keys: [keyA, keyB].sort() });
  });

  it("adds the user-data's own ssh_authorized_keys to them instead of losing either", async function () {
    const userData = `#cloud-config\nssh_authorized_keys:\n  - ${userKey}\nruncmd:\n  - [touch, /tmp/ran]\n`;
    const got = await credentials({ name: 'keys-and-user', sshKeys: [keyA, keyB], userData });
    expect(got).to.deep.equal({ user: 'debian', keys: [keyA, keyB, userKey].sort() });
  });

  it('keeps a comment with quotes, a colon and non-ASCII letters exactly', async function () {
    const key = `${keyA.split(' ').slice(0, 2).join(' ')} "José": laptop # 🔑`;
    expect(await credentials({ name: 'keys-comment', sshKeys: [key] })).to.deep.equal({ user: 'debian', keys: [key] });
  });

  it('gives none when the job has no sshKeys, so the checks above can fail', async function () {
    expect(await credentials({ name: 'no-keys' })).to.deep.equal({ user: 'debian', keys: [] });
  });

  it('has no default user to give them to when the user-data lists users without default (documented)', async function () {
    const got = await credentials({ name: 'keys-no-default', sshKeys: [keyA], userData: '#cloud-config\nusers:\n  - name: ops\n' });
    expect(got).to.deep.equal({ user: null, keys: [keyA] });
  });

  it('gives none when the user-data says allow_public_ssh_keys: false (documented)', async function () {
    const got = await credentials({ name: 'keys-refused', sshKeys: [keyA], userData: '#cloud-config\nallow_public_ssh_keys: false\n' });
    expect(got).to.deep.equal({ user: 'debian', keys: [] });
  });
});
