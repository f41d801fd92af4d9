// SPEC 27 done-when: the README's walk from zero to a VM, run as written
// (ports, the service command and the receiver's path changed): the
// example receiver on a free port, the service with the walk's images and
// webhook on the simulator, then the curl block creating a VM of an image
// with an SSH key; the receiver prints the VM's vm.ready with its address
// and a good signature. Every secret the walk leaves in var/ is the
// owner's alone (mode 0600).
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '../support/free-port.js';
import { readmeBlock, repoRoot } from '../support/readme.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../support/redis.js';

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Runs a README block in sh and resolves once its output holds `ready`. */
function startBlock(script: string, cwd: string, env: NodeJS.ProcessEnv, ready: string): Promise<Started> {
  const child = spawn('sh', ['-ec', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${ready}" within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before "${ready}":\n${output}`));
    });
  });
}

function runShell(script: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-ec', script], { cwd, timeout: 90_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

async function eventually(check: () => boolean, what: () => string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the README's walk from zero to a VM: an image, an SSH key, a webhook (SPEC 27)", function () {
  this.timeout(180_000);
  const prefix = uniquePrefix('walk');
  let cwd: string;
  let receiver: Started | undefined;
  let service: Started | undefined;
  let httpPort: number;

  before(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-walk-'));
    const receiverPort = await freePort();
    httpPort = await freePort();
    const receiverBlock = readmeBlock('readme-walk: receiver')
      .replace('node examples/', `exec node ${repoRoot}/examples/`)
      .replace(/ 9000$/m, ` ${receiverPort}`);
    receiver = await startBlock(receiverBlock, cwd, process.env, 'receiving webhooks on');

    const tsx = pathToFileURL(join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const serviceBlock = readmeBlock('readme-walk: service')
      .replace('127.0.0.1:9000', `127.0.0.1:${receiverPort}`)
      .replace('npm start', `exec "${process.execPath}" --import ${tsx} ${join(repoRoot, 'src', 'cli.ts')} all`);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HTTP_PORT: String(httpPort),
      SIM_PORT: String(await freePort()),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SIM_TIME_SCALE: '0.02',
      BUDGETS_FIRST_ADDRESS_SECONDS: '0.6',
    };
    delete env.PVE_PROVISIONER_CONFIG;
    service = await startBlock(serviceBlock, cwd, env, 'API at http://');
  });

  after(async () => {
    for (const started of [service, receiver]) if (started && started.child.exitCode === null) started.child.kill('SIGKILL');
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('the curl block creates a VM of the debian image with the key, and the receiver prints its vm.ready, signature ok', async () => {
    const printed = await runShell(readmeBlock('readme-curl').replaceAll('127.0.0.1:8080', `127.0.0.1:${httpPort}`), cwd);
    const jobId = /^job (\S+)$/m.exec(printed)?.[1];
    expect(jobId, printed).to.be.a('string');
    const job = JSON.parse(printed.slice(printed.indexOf('\n') + 1)) as { state: string; data?: { image?: string; sshKeys?: string[] }; result?: { address?: string } };
    expect(job.state, printed).to.equal('completed');
    expect(job.data?.image).to.equal('debian');
    expect(job.data?.sshKeys?.[0]).to.equal(readFileSync(join(cwd, 'var', 'demo-key.pub'), 'utf8').trim());
    const line = new RegExp(`^vm\\.ready demo-1 job ${jobId ?? ''} address ${job.result?.address ?? 'none'}, signature ok$`, 'm');
    await eventually(
      () => line.test(receiver?.output() ?? ''),
      () => `the receiver printed no ${String(line)}:\n${receiver?.output() ?? ''}`,
    );
    expect(receiver?.output()).not.to.contain('bad signature');
  });

  it('leaves every secret it made readable by its owner alone (0600), the webhook secret included, whatever the umask', () => {
    const secrets = ['webhook-secret', 'demo-key', 'api-tokens', 'board-users', 'proxmox-token'];
    const modes = secrets.map((file) => `${file} ${(statSync(join(cwd, 'var', file)).mode & 0o777).toString(8)}`);
    expect(modes).to.deep.equal(secrets.map((file) => `${file} 600`));
  });
});
