// SPEC 6: the one-command start. `pve-provisioner all` runs as a child
// process in an empty directory on the default config (the simulator),
// on free ports and its own Redis prefix; the curl block of
// docs/operations.md runs as written (port changed) and must end with an
// address; the job is visible in Bull Board; no credential reaches the
// logs; SIGTERM ends the process with status 0.
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { basicHeader } from '../web/helpers.js';
import { freePort } from '../support/free-port.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../support/redis.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The shell block that follows the e2e marker in docs/operations.md. */
function readmeCurlBlock(port: number): string {
  const doc = readFileSync(join(repo, 'docs', 'operations.md'), 'utf8');
  const match = /<!-- e2e:[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(doc);
  if (!match?.[1]) throw new Error('docs/operations.md has no e2e curl block');
  return match[1].replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
}

function runShell(script: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-ec', script], { cwd, timeout: 90_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

describe('one-command start: pve-provisioner all on the simulator (SPEC 6)', function () {
  this.timeout(120_000);
  let cwd: string;
  let prefix: string;
  let child: ChildProcess | undefined;
  let port: number;
  let output = '';
  let exited: Promise<number | null>;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-e2e-'));
    prefix = uniquePrefix('e2e');
    port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HTTP_PORT: String(port),
      SIM_PORT: String(await freePort()),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SIM_TIME_SCALE: '0.02',
      LOG_LEVEL: 'info',
    };
    delete env.PVE_PROVISIONER_CONFIG;
    const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const started = spawn(process.execPath, ['--import', tsx, join(repo, 'src', 'cli.ts'), 'all'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    exited = new Promise((resolve) => started.once('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "API at" line within 60 s:\n${output}`)), 60_000);
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (output.includes('API at http://')) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.stdout.on('data', onData);
      started.stderr.on('data', onData);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`pve-provisioner all exited with ${code} before listening:\n${output}`));
      });
    });
  });

  after(async () => {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('logs where the API and Bull Board are and which files hold the credentials', () => {
    expect(output).to.contain(`http://127.0.0.1:${port}/v1`).and.to.contain(`http://127.0.0.1:${port}/admin/queues`);
    expect(output).to.contain('var/api-tokens').and.to.contain('var/board-users');
    expect(output).to.contain('simulator');
  });

  it("the docs' curl example creates a VM whose job ends with an address", async () => {
    const printed = await runShell(readmeCurlBlock(port), cwd);
    const lines = printed.trim().split('\n');
    expect(lines[0]).to.match(/^job \S+/);
    const job = JSON.parse(lines.at(-1) ?? '{}') as { state: string; job: string; result?: { address?: string; state?: string } };
    expect(job.job).to.equal('create');
    expect(job.state).to.equal('completed');
    expect(job.result?.state).to.equal('Running');
    expect(job.result?.address).to.match(/^\d+\.\d+\.\d+\.\d+$/);
  });

  it('the finished job is in Bull Board, behind the user in var/board-users', async () => {
    const line = readFileSync(join(cwd, 'var', 'board-users'), 'utf8').trim();
    const colon = line.indexOf(':');
    const authorization = basicHeader(line.slice(0, colon), line.slice(colon + 1));
    const res = await fetch(`http://127.0.0.1:${port}/admin/queues/api/queues?activeQueue=vm&status=completed`, { headers: { authorization } });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { queues: { name: string; jobs: { name: string; data: { name?: string }; returnValue?: { address?: string } }[] }[] };
    const vm = body.queues.find((q) => q.name === 'vm');
    const job = vm?.jobs.find((j) => j.data.name === 'demo-1');
    expect(job?.name).to.equal('create');
    expect(job?.returnValue?.address).to.match(/^\d+\.\d+\.\d+\.\d+$/);
  });

  it('no credential value appears in the output', () => {
    for (const file of ['api-tokens', 'board-users', 'proxmox-token']) {
      const secret = readFileSync(join(cwd, 'var', file), 'utf8').trim();
      const value = file === 'board-users' ? secret.slice(secret.indexOf(':') + 1) : file === 'proxmox-token' ? secret.slice(secret.indexOf('=') + 1) : secret;
      expect(output, file).to.not.contain(value);
    }
  });

  it('SIGTERM shuts it down with status 0', async () => {
    child?.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });
});
