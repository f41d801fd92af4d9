// `pve-provisioner sim` (SPEC 6, 8): listens on the sim config, accepts the
// token of proxmox.tokenFile (created 0600 when missing), prints the URL
// and each node's own (SPEC 28), never the token; bad flags exit 2.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

describe('pve-provisioner sim (SPEC 6, 8)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the token file 0600, prints the URL and each node\'s but not the token, and serves with that token', async () => {
    const tokenFile = join(dir, 'proxmox-token');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sim', '--port', '0', '--vms', '1'], {
      env: { ...process.env, PROXMOX_TOKEN_FILE: tokenFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /listening on (\S+)/.exec(out);
        if (found) resolve(found[1] as string);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).to.match(/^root@pam!provisioner=[0-9a-f-]{36}$/);
    expect(statSync(tokenFile).mode & 0o777).to.equal(0o600);
    expect(out).not.to.include(token.split('=')[1]);
    const answer = await fetch(`${url}/api2/json/version`, { headers: { Authorization: `PVEAPIToken=${token}` } });
    expect(answer.status).to.equal(200);
    // SPEC 28: a line per node with its own pveproxy's URL, the first node's being the main one.
    const nodeLines = await new Promise<string[]>((resolve) => {
      const lines = (): string[] => [...out.matchAll(/^ {2}node (\S+): (\S+?)( \(the URL above\))?; calls sent there enter \1's pveproxy$/gm)].map((m) => `${m[1]} ${m[2]}${m[3] ?? ''}`);
      if (lines().length === 2) resolve(lines());
      else child.stdout.on('data', () => lines().length === 2 && resolve(lines()));
    });
    const listed = (await (await fetch(`${url}/_sim/nodes`)).json()) as { nodeUrls: Record<string, string> };
    expect(nodeLines).to.deep.equal(Object.entries(listed.nodeUrls).map(([node, nodeUrl], i) => `${node} ${nodeUrl}${i === 0 ? ' (the URL above)' : ''}`));
    expect(Object.values(listed.nodeUrls)[0]).to.equal(url);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });

  it('SIM_CLUSTERS=2 (SPEC 32): a simulator per cluster, each printed with its cluster, on ports of their own, with the same token file', async () => {
    const tokenFile = join(dir, 'proxmox-token');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'sim', '--port', '0', '--vms', '1'], {
      env: { ...process.env, PROXMOX_TOKEN_FILE: tokenFile, SIM_CLUSTERS: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const listening = await new Promise<string[][]>((resolve, reject) => {
      const lines = (): string[][] => [...out.matchAll(/^Proxmox VE simulator of cluster (\S+) listening on (\S+) .*it accepts the token in (\S+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '', m[3] ?? '']);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (lines().length === 2) resolve(lines());
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(listening.map(([cluster, , file]) => [cluster, file])).to.deep.equal([
      ['sim1', tokenFile],
      ['sim2', tokenFile],
    ]);
    const [first, second] = listening.map(([, url]) => url ?? '');
    expect(first).not.to.equal(second);
    const token = readFileSync(tokenFile, 'utf8').trim();
    for (const url of [first, second]) expect((await fetch(`${url}/api2/json/version`, { headers: { Authorization: `PVEAPIToken=${token}` } })).status, url).to.equal(200);
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });

  for (const args of [['--port', 'eighty'], ['--tls-cert', 'only.pem'], ['--colour']]) {
    it(`exits 2 with the reason on stderr for ${args.join(' ')}`, () => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'sim', ...args], { encoding: 'utf8' });
      expect(result.status).to.equal(2);
      expect(result.stderr).to.match(/^pve-provisioner sim: [^\n]+\nusage: pve-provisioner sim/);
    });
  }
});
