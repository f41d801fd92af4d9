// SPEC 6: `pve-provisioner seed` writes the seed ISO of SPEC 20; bad input
// exits 2 with the flag and the reason on stderr.
import { expect } from 'chai';
import sinon from 'sinon';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../src/cli/seed.js';
import { buildSeed } from '../../src/nocloud/seed.js';
import { pycdlibView } from '../nocloud/readers.js';
import { withTempDir } from '../nocloud/tools.js';
import { fixtureKey } from '../support/ssh-keys.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'seed', ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the command in-process, capturing what it writes to stderr. */
async function runCaptured(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const errStub = sinon.stub(process.stderr, 'write').callsFake((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  const outStub = sinon.stub(process.stdout, 'write').returns(true);
  try {
    return { code: await run(args), stderr };
  } finally {
    errStub.restore();
    outStub.restore();
  }
}

describe('pve-provisioner seed (SPEC 6, 20)', function () {
  let dir = '';
  let cleanup: () => Promise<void> = () => Promise.resolve();
  const USER_DATA = '#cloud-config\nhostname: from-cli\n';
  const NETWORK = 'version: 2\nethernets: {}\n';

  beforeEach(async function () {
    ({ dir, cleanup } = await withTempDir('seed-cli-'));
    await writeFile(join(dir, 'user-data.yaml'), USER_DATA);
    await writeFile(join(dir, 'network.yaml'), NETWORK);
  });
  afterEach(() => cleanup());

  it('writes the seed ISO through the pve-provisioner command, the same bytes buildSeed gives', async function () {
    const out = join(dir, 'vm-1-seed.iso');
    const result = cli(['--name', 'vm-1', '--user-data', join(dir, 'user-data.yaml'), '--network-config', join(dir, 'network.yaml'), '--out', out]);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.include(out);
    const view = pycdlibView(out, 'rr');
    expect([...view.keys()].sort()).to.deep.equal(['meta-data', 'network-config', 'user-data', 'vendor-data']);
    expect(view.get('user-data')?.toString()).to.equal(USER_DATA);
    expect(view.get('network-config')?.toString()).to.equal(NETWORK);
    const expected = buildSeed({ name: 'vm-1', userData: USER_DATA, networkConfig: NETWORK, installGuestAgent: true, joliet: false });
    const chunks: Buffer[] = [];
    for await (const chunk of expected.open()) chunks.push(chunk as Buffer);
    expect((await readFile(out)).equals(Buffer.concat(chunks))).to.be.true;
  });

  it('exits 2 through the command on a bad name, saying which flag', function () {
    const result = cli(['--name', 'Not_A_Label', '--out', join(dir, 'x.iso')]);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.match(/--name "Not_A_Label": must be a DNS label/);
    expect(existsSync(join(dir, 'x.iso'))).to.be.false;
  });

  it('leaves vendor-data out with --no-guest-agent and adds Joliet names with --joliet', async function () {
    const out = join(dir, 'a.iso');
    expect((await runCaptured(['--name', 'a', '--no-guest-agent', '--joliet', '--out', out])).code).to.equal(0);
    expect([...pycdlibView(out, 'joliet').keys()].sort()).to.deep.equal(['meta-data', 'user-data']);
  });

  it('puts the keys of every --ssh-key file, each line a key, in meta-data public-keys (SPEC 27)', async function () {
    const [a, b, c] = [fixtureKey('ed25519.pub'), fixtureKey('rsa-2048.pub'), fixtureKey('ecdsa-256.pub')];
    await writeFile(join(dir, 'one.pub'), `${a}\n`);
    await writeFile(join(dir, 'authorized_keys'), `# team keys\n${b}\n\n${c}\n`);
    const out = join(dir, 'keys.iso');
    const { code, stderr } = await runCaptured(['--name', 'keys', '--ssh-key', join(dir, 'one.pub'), '--ssh-key', join(dir, 'authorized_keys'), '--out', out]);
    expect(code, stderr).to.equal(0);
    const metaData = pycdlibView(out, 'rr').get('meta-data')?.toString() ?? '';
    expect(metaData).to.equal(`instance-id: "keys"\nlocal-hostname: "keys"\npublic-keys:\n${[a, b, c].map((k) => `  - "${k}"\n`).join('')}`);
  });

  const badInputs: { title: string; args: (d: string) => string[]; flag: RegExp }[] = [
    { title: 'no --name', args: (d) => ['--out', join(d, 'x.iso')], flag: /--name is required/ },
    { title: 'a name ending in "-"', args: (d) => ['--name', 'vm-', '--out', join(d, 'x.iso')], flag: /--name "vm-"/ },
    { title: 'no --out', args: () => ['--name', 'vm'], flag: /--out is required/ },
    { title: 'a missing --user-data file', args: (d) => ['--name', 'vm', '--user-data', join(d, 'nope'), '--out', join(d, 'x.iso')], flag: /--user-data .*nope: cannot read it \(ENOENT\)/ },
    { title: 'a --network-config that is not UTF-8', args: (d) => ['--name', 'vm', '--network-config', join(d, 'latin1'), '--out', join(d, 'x.iso')], flag: /--network-config .*latin1: not UTF-8/ },
    { title: 'a --user-data over 64 KiB', args: (d) => ['--name', 'vm', '--user-data', join(d, 'big'), '--out', join(d, 'x.iso')], flag: /--user-data .*big: 65537 bytes, at most 65536/ },
    {
      title: 'a DSA key in an --ssh-key file, naming its file and line',
      args: (d) => ['--name', 'vm', '--ssh-key', join(d, 'keys.pub'), '--out', join(d, 'x.iso')],
      flag: /--ssh-key .*keys\.pub line 3 \(sshKeys\[1\]\) is not an OpenSSH public key: its type is ssh-dss/,
    },
    { title: 'an empty --ssh-key file', args: (d) => ['--name', 'vm', '--ssh-key', join(d, 'empty.pub'), '--out', join(d, 'x.iso')], flag: /--ssh-key .*empty\.pub: no line in it/ },
    { title: 'an unknown flag', args: (d) => ['--name', 'vm', '--colour', '--out', join(d, 'x.iso')], flag: /--colour/ },
    { title: '--name without a value', args: () => ['--name'], flag: /--name/ },
    { title: 'an --out in a missing directory', args: (d) => ['--name', 'vm', '--out', join(d, 'no', 'x.iso')], flag: /--out .*x\.iso: cannot write there/ },
  ];
  for (const bad of badInputs) {
    it(`exits 2 naming the flag on ${bad.title}, and writes nothing`, async function () {
      await writeFile(join(dir, 'latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
      await writeFile(join(dir, 'big'), 'x'.repeat(64 * 1024 + 1));
      await writeFile(join(dir, 'keys.pub'), `${fixtureKey('ed25519.pub')}\n\n${fixtureKey('dsa.pub')}\n`);
      await writeFile(join(dir, 'empty.pub'), '# nothing but a comment\n\n');
      const before = (await readdir(dir)).sort();
      const { code, stderr } = await runCaptured(bad.args(dir));
      expect(code).to.equal(2);
      expect(stderr).to.match(bad.flag);
      expect((await readdir(dir)).sort()).to.deep.equal(before);
    });
  }
});
