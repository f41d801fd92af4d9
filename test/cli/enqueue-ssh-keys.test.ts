// `pve-provisioner enqueue create --ssh-key FILE` (SPEC 6, 27): the flag
// repeats, each file gives one key a line, and a bad key is refused (exit
// 2) naming its file and line and the sshKeys item, with nothing enqueued.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as enqueue } from '../../src/cli/enqueue.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { fixtureKey } from '../support/ssh-keys.js';
import { sink } from '../support/sink.js';


describe('pve-provisioner enqueue create --ssh-key (SPEC 6, 27)', function () {
  let h: Harness;
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'enqueue-keys-'));
  });
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  it('records the keys of every file, in order, as the create spec', async () => {
    h = createHarness('cli-keys');
    const [a, b, c] = [fixtureKey('ed25519.pub'), fixtureKey('rsa-2048.pub'), fixtureKey('ecdsa-521.pub')];
    writeFileSync(join(dir, 'me.pub'), `${a}\n`);
    writeFileSync(join(dir, 'team'), `${b}\r\n# ops\r\n${c}\r\n`);
    const [stdout, stderr] = [sink(), sink()];
    const code = await enqueue(['create', '--name', 'keys-1', '--ssh-key', join(dir, 'me.pub'), '--ssh-key', join(dir, 'team')], { config: h.config, stdout, stderr });
    expect(code, stderr.text()).to.equal(0);
    expect(stdout.text()).to.match(/^create-keys-1-1\n$/);
    expect((await h.client.getVm('keys-1'))?.spec).to.have.deep.property('sshKeys', [a, b, c]);
  });

  it('exits 2 on a bad key, naming the file, the line and sshKeys[i], and enqueues nothing', async () => {
    h = createHarness('cli-keys-bad');
    writeFileSync(join(dir, 'me.pub'), `${fixtureKey('ed25519.pub')}\n`);
    writeFileSync(join(dir, 'old.pub'), `\n${fixtureKey('rsa-1024.pub')}\n`);
    const [stdout, stderr] = [sink(), sink()];
    const code = await enqueue(['create', '--name', 'keys-2', '--ssh-key', join(dir, 'me.pub'), '--ssh-key', join(dir, 'old.pub')], { config: h.config, stdout, stderr });
    expect(code).to.equal(2);
    expect(stderr.text()).to.include(`--ssh-key ${join(dir, 'old.pub')} line 2 (sshKeys[1]) is an RSA key of 1024 bits; at least 2048 are needed`);
    expect(stdout.text()).to.equal('');
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active')).to.equal(0);
    expect(await h.client.getVm('keys-2')).to.equal(undefined);
  });

  it('refuses a private key file as a whole (exit 2), quoting none of it, and enqueues nothing', async () => {
    h = createHarness('cli-keys-private');
    const key = join(dir, 'id_rsa');
    execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '2048', '-N', '', '-f', key]);
    const body = readFileSync(key, 'utf8').split('\n').filter((line) => line !== '' && !line.includes('PRIVATE KEY'));
    const [stdout, stderr] = [sink(), sink()];
    const code = await enqueue(['create', '--name', 'keys-3', '--ssh-key', key], { config: h.config, stdout, stderr });
    expect(code).to.equal(2);
    expect(stderr.text().split('\n')[0]).to.equal(`pve-provisioner enqueue: --ssh-key ${key}: is a private key; give its public key (the .pub file), and keep the private one to yourself`);
    expect(stderr.text()).not.to.include('sshKeys');
    for (const line of body) expect(stderr.text()).not.to.include(line.slice(0, 16));
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active')).to.equal(0);
    expect(await h.client.getVm('keys-3')).to.equal(undefined);
  });

  it('shows the flag as repeatable in the usage', async () => {
    h = createHarness('cli-keys-usage');
    const stdout = sink();
    expect(await enqueue(['--help'], { config: h.config, stdout, stderr: sink() })).to.equal(0);
    expect(stdout.text()).to.include('[--ssh-key FILE]...');
  });
});
