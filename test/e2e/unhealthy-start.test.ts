// Issue 26, SPEC 19, 24: `pve-provisioner all` pointed at a Proxmox that
// does not answer (nothing listens on its port; no Proxmox token file)
// starts, says at start which node failed which check and that no node
// can take a VM; /readyz says the workers cannot provision, naming no
// node without a token; a create is accepted with a warning saying why.
// A child process in an empty directory, on its own Redis prefix.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '../support/free-port.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('a start with no usable node (issue 26, SPEC 19)', function () {
  this.timeout(120_000);
  let cwd: string;
  let prefix: string;
  let child: ChildProcess | undefined;
  let base: string;
  let output = '';
  let exited: Promise<number | null>;
  const apiToken = randomBytes(24).toString('hex');

  const waitForOutput = (text: string, timeoutMs: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      const look = (): void => {
        if (output.includes(text)) resolve();
        else if (Date.now() > deadline) reject(new Error(`no "${text}" within ${timeoutMs} ms:\n${output}`));
        else setTimeout(look, 100);
      };
      look();
    });

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-unhealthy-'));
    // Off the simulator nothing creates the credentials files: the operator does.
    mkdirSync(join(cwd, 'var'));
    writeFileSync(join(cwd, 'var', 'api-tokens'), `${apiToken}\n`, { mode: 0o600 });
    writeFileSync(join(cwd, 'var', 'board-users'), `ops:${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
    writeFileSync(join(cwd, 'var', 'fingerprint-key'), `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    prefix = uniquePrefix('unhealthy');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HTTP_PORT: String(port),
      PROXMOX_URL: `http://127.0.0.1:${await freePort()}`,
      PROXMOX_NODES: '[{"name":"pve1","template":9001,"isoStorage":"proxy-seeds"}]',
      REDIS_URL,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'info',
    };
    delete env.PVE_PROVISIONER_CONFIG;
    const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const started = spawn(process.execPath, ['--import', tsx, join(repo, 'src', 'cli.ts'), 'all'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await Promise.race([
      waitForOutput('no node can take a VM', 90_000),
      exited.then((code) => Promise.reject(new Error(`pve-provisioner all exited with ${code}:\n${output}`))),
    ]);
  });

  after(async () => {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(cwd, { recursive: true, force: true });
  });


  it('the worker says at start, in warn lines, which node failed which check and that no node can take a VM', () => {
    const lines = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    const node = lines.find((line) => line.msg.startsWith('node pve1 failed the health check: '));
    expect(node?.level, output).to.equal(40);
    expect(node?.msg).to.match(/: (Unreachable|CredentialsUnavailable) \(/);
    expect(lines.find((line) => line.msg.startsWith('no node can take a VM'))?.level).to.equal(40);
  });

  it('/readyz says the workers cannot provision and why, naming the node only to a token holder', async () => {
    const open = await fetch(`${base}/readyz`);
    expect(open.status).to.equal(503);
    const summary = (await open.json()) as { reason: string };
    expect(summary.reason).to.match(/^the workers cannot provision: .*\((Unreachable|CredentialsUnavailable)/);
    expect(JSON.stringify(summary)).to.not.contain('pve1');
    const detail = (await (await fetch(`${base}/readyz`, { headers: { authorization: `Bearer ${apiToken}` } })).json()) as { reason: string };
    expect(detail.reason).to.match(/pve1: (Unreachable|CredentialsUnavailable)/);
  });

  it('a create is accepted with a warning naming the node and the check', async () => {
    const res = await fetch(`${base}/v1/vms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'while-unhealthy' }),
    });
    expect(res.status).to.equal(202);
    const body = (await res.json()) as { warning?: string };
    expect(body.warning).to.match(/^no node can take a VM: .*pve1: (Unreachable|CredentialsUnavailable)/);
  });

  it('SIGTERM ends it with status 0', async () => {
    child?.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
