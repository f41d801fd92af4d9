// SPEC 27: "A TypeScript project outside the repo installs the client,
// type-checks a createVm call and runs it against npm start". The package
// is packed as npm would publish it, installed from the tarball into an
// empty project in a temp dir (its dependencies from the npm registry),
// and must bring no server package; the repo's TypeScript refuses a
// misspelt or mistyped create and passes a correct one, which then runs
// against `pve-provisioner all` (the simulator, free ports, a prefix of
// its own) and sees its job complete.
import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '../support/free-port.js';
import { NO_CLUSTER_ENV, deletePrefix, REDIS_URL, uniquePrefix } from '../support/redis.js';

const repo = resolve(import.meta.dirname, '..', '..');
const packageDir = join(repo, 'packages', 'client');
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

/** The server's own dependencies (the root package.json's): none may come with the client. */
const SERVER_PACKAGES = ['fastify', '@bull-board/api', '@bull-board/fastify', '@fastify/basic-auth', 'got', 'pino', 'pino-pretty', 'convict', 'prom-client'];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      done({ code, stdout, stderr });
    });
  });
}

function mustRun(result: Run, what: string): Run {
  if (result.code !== 0) throw new Error(`${what} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The repo's tsc over one file, as a strict NodeNext project (Node's types from the repo). */
function typeCheck(app: string, file: string, emit: boolean): Promise<Run> {
  const options = ['--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', 'false'];
  const types = ['--typeRoots', join(repo, 'node_modules', '@types'), '--types', 'node'];
  return run(process.execPath, [tsc, ...options, ...types, ...(emit ? ['--outDir', 'out'] : ['--noEmit']), file], app);
}

const MISTAKES = `import { createProvisionerClient } from '@pve-provisioner/client';
const client = createProvisionerClient({ redisUrl: 'redis://127.0.0.1:6379', prefix: 'unused' });
await client.createVm({ name: 'typo-1', coers: 2 });
await client.createVm({ name: 'typo-2', memoryMiB: '2048' });
await client.createVm({ cores: 2 });
await client.close();
`;

const CORRECT = `import { createProvisionerClient, ValidationError } from '@pve-provisioner/client';
import type { CreateStep, CreateVmInput, JobView } from '@pve-provisioner/client';

const client = createProvisionerClient({ redisUrl: process.env.REDIS_URL ?? '', prefix: process.env.PREFIX ?? '' });
const vm: CreateVmInput = { name: 'from-package-1', cores: 1, memoryMiB: 512 };
try {
  const { jobId } = await client.createVm(vm);
  const view: JobView = await client.waitForJob(jobId, { timeoutMs: 60_000 });
  // Narrowed by the job's name: a create's result is typed, its address read with no cast.
  const address: string | undefined = view.job === 'create' && view.result !== undefined && !('superseded' in view.result) ? view.result.address : undefined;
  const step: CreateStep | undefined = view.step;
  console.log(JSON.stringify({ ...view, address, step }));
} catch (err) {
  if (err instanceof ValidationError) console.error(err.fields);
  throw err;
} finally {
  await client.close();
}
`;

/** Starts `pve-provisioner all` on the default config (the simulator), as npm start does, on free ports and `prefix`. */
async function startService(cwd: string, prefix: string): Promise<{ child: ChildProcess; output: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, HTTP_PORT: String(await freePort()), SIM_PORT: String(await freePort()), REDIS_URL, ...NO_CLUSTER_ENV, REDIS_PREFIX: prefix, SIM_TIME_SCALE: '0.02' };
  delete env.PVE_PROVISIONER_CONFIG;
  const loader = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', loader, join(repo, 'src', 'cli.ts'), 'all'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "API at" line within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('API at http://')) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`pve-provisioner all exited with ${code} before listening:\n${output}`));
    });
  });
  return { child, output: () => output };
}

describe('@pve-provisioner/client installed on its own (SPEC 27)', function () {
  this.timeout(600_000);
  let work: string;
  let app: string;
  let packed: { filename: string; files: { path: string }[] };
  let lock: { packages: Record<string, { version?: string }> };

  before(async function () {
    // The one reason to skip: the dependencies cannot be fetched.
    const ping = await run('npm', ['ping'], tmpdir());
    if (ping.code !== 0) {
      console.warn(`      skipped: the npm registry does not answer (npm ping: ${ping.stderr.trim().split('\n').at(-1) ?? ''})`);
      this.skip();
    }
    work = mkdtempSync(join(tmpdir(), 'pvep-client-package-'));
    const pack = mustRun(await run('npm', ['pack', '--json', '--pack-destination', work], packageDir), 'npm pack');
    // The prepack build may print before the JSON.
    packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[\n'))) as (typeof packed)[])[0] ?? packed;
    app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'a-backend', version: '1.0.0', private: true, type: 'module' }));
    mustRun(await run('npm', ['install', join(work, packed.filename), '--prefer-offline', '--no-audit', '--no-fund'], app), 'npm install');
    lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as typeof lock;
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('ships its built JavaScript and type declarations, nothing else', () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).to.include.members(['package.json', 'README.md', 'dist/src/client.js', 'dist/src/client.d.ts', 'dist/src/job-table/schema.d.ts']);
    expect(paths.filter((p) => !/^dist\/.+\.(js|d\.ts)$/.test(p) && p !== 'package.json' && p !== 'README.md')).to.deep.equal([]);
  });

  it("every shipped file imports only Node's modules and the package's dependencies", () => {
    const installed = join(app, 'node_modules', '@pve-provisioner', 'client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const foreign = new Set<string>();
    for (const { path } of packed.files.filter((f) => f.path.startsWith('dist/'))) {
      const text = readFileSync(join(installed, path), 'utf8');
      for (const [, specifier = ''] of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (!specifier.startsWith('.') && !specifier.startsWith('node:') && !(specifier in manifest.dependencies)) foreign.add(`${specifier} (${path})`);
      }
    }
    expect([...foreign]).to.deep.equal([]);
  });

  it('installs without any server package', () => {
    const names = Object.keys(lock.packages)
      .filter((key) => key !== '')
      .map((key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
    const bytes = bytesUnder(join(app, 'node_modules'));
    console.log(`      installed: ${names.length} packages, ${(bytes / 1024 / 1024).toFixed(1)} MB in node_modules (tarball ${packed.filename})`);
    expect(names).to.include.members(['@pve-provisioner/client', 'bullmq', 'ioredis']);
    expect(names.filter((name) => SERVER_PACKAGES.includes(name))).to.deep.equal([]);
  });

  it("the repo's tsc refuses a misspelt field, a wrong type and a missing name in createVm", async () => {
    writeFileSync(join(app, 'mistakes.ts'), MISTAKES);
    const checked = await typeCheck(app, 'mistakes.ts', false);
    const errors = checked.stdout.split('\n').filter((line) => line.includes('error TS'));
    expect(checked.code).to.not.equal(0);
    expect(errors, checked.stdout).to.have.length(3);
    expect(errors[0]).to.match(/^mistakes\.ts\(3,\d+\): error TS(2353|2561): .*'coers'/);
    expect(errors[1]).to.match(/^mistakes\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
    expect(errors[2]).to.match(/^mistakes\.ts\(5,\d+\): error TS2345: Argument of type '\{ cores: number; \}'/);
    expect(checked.stdout).to.contain("Property 'name' is missing in type '{ cores: number; }'");
  });

  it("the package README's example type-checks as it is written", async () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).to.contain('createVm(');
    writeFileSync(join(app, 'readme-example.ts'), example ?? '');
    const checked = await typeCheck(app, 'readme-example.ts', false);
    expect(checked.stdout + checked.stderr).to.equal('');
  });

  describe('a correct createVm', () => {
    let prefix: string;
    let service: { child: ChildProcess; output: () => string } | undefined;

    after(async () => {
      service?.child.kill('SIGKILL');
      const redis = new Redis(REDIS_URL);
      await deletePrefix(redis, prefix);
      redis.disconnect();
    });

    it('type-checks clean, strict, declarations checked too (no skipLibCheck)', async () => {
      writeFileSync(join(app, 'backend.ts'), CORRECT);
      const checked = await typeCheck(app, 'backend.ts', true);
      expect(checked.stdout + checked.stderr).to.equal('');
      expect(checked.code).to.equal(0);
    });

    it('runs against pve-provisioner all, as npm start starts it, and its job completes with an address', async () => {
      prefix = uniquePrefix('client-package');
      service = await startService(work, prefix);
      const ran = mustRun(await run(process.execPath, [join(app, 'out', 'backend.js')], app, { ...process.env, REDIS_URL, PREFIX: prefix }), 'the backend');
      const view = JSON.parse(ran.stdout.trim()) as { job: string; state: string; result?: { state?: string; address?: string }; address?: string; step?: string; progress: number };
      expect(view.job).to.equal('create');
      expect(view.state, service.output()).to.equal('completed');
      expect(view.result?.state).to.equal('Running');
      expect(view.result?.address).to.match(/^\d+\.\d+\.\d+\.\d+$/);
      // What the backend read through the types is the result's address; the last step and a full bar.
      expect(view.address).to.equal(view.result?.address);
      expect(view.step).to.equal('address');
      expect(view.progress).to.equal(100);
    });
  });
});
