// SPEC 27: `pve-provisioner list`, `get NAME` and `enqueue ... --wait`'s
// progress on stderr, each run as a child process on the real Redis under
// the test's prefix: list pages through more names than one page holds
// and filters, get shows one name as the API does, and --wait prints the
// job's steps and address on stderr while stdout stays one JSON document
// (--json) that jq reads; text from Redis is printed with its control
// characters escaped.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { CREATE_STEPS } from '../support/recording-provider.js';
import { NO_CLUSTER_ENV, REDIS_URL } from '../support/redis.js';
import { controlCharacters } from '../support/terminal.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = pathToFileURL(join(repo, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface ListedVm {
  name: string;
  state: string;
  lastKnown?: { node?: string };
}

describe('pve-provisioner list, get and --wait progress (SPEC 27)', function () {
  this.timeout(120_000);
  let h: Harness;
  let cwd: string;

  const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', tsx, join(repo, 'src', 'cli.ts'), ...args],
        { cwd, env: { ...process.env, REDIS_URL, REDIS_PREFIX: h.config.redis.prefix, PVE_PROVISIONER_CONFIG: '', LOG_LEVEL: 'warn', ...env }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'pvep-cli-list-'));
  });
  afterEach(async () => {
    await h.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('list pages through every name (1,005: more than a page), as a table or one JSON document, and filters by --state and --node', async () => {
    h = createHarness('cli-list');
    const names = Array.from({ length: 1005 }, (_, i) => `list-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((name) => h.client.createVm({ name, uid: `u-${name}` })));
    await h.client.deleteVm({ name: 'list-0003' });
    const registry = new DesiredStateRegistry(h.redis, h.prefix, h.config.registry.tombstoneSeconds);
    await registry.recordLastKnown('list-0007', { state: 'Running', node: 'pve2', vmid: 100007, address: '192.0.2.7', at: new Date().toISOString() });

    const json = await cli(['list', '--json']);
    expect(json.code, json.stderr).to.equal(0);
    const listed = (JSON.parse(json.stdout) as { vms: ListedVm[] }).vms;
    expect(listed.map((vm) => vm.name)).to.deep.equal(names);

    const text = await cli(['list']);
    expect(text.code, text.stderr).to.equal(0);
    const rows = text.stdout.trimEnd().split('\n');
    expect(rows[0]).to.match(/^NAME\s+STATE\s+LAST SEEN\s+NODE\s+VMID\s+ADDRESS\s+EXPIRES\s+UPDATED$/);
    expect(rows).to.have.length(1 + names.length);
    expect(rows.find((r) => r.startsWith('list-0007 '))).to.match(/^list-0007\s+present\s+Running\s+pve2\s+100007\s+192\.0\.2\.7\s+-\s+\S+$/);

    const absent = await cli(['list', '--state', 'absent', '--json']);
    expect((JSON.parse(absent.stdout) as { vms: ListedVm[] }).vms.map((vm) => vm.name)).to.deep.equal(['list-0003']);
    const onPve2 = await cli(['list', '--node', 'pve2', '--json']);
    expect((JSON.parse(onPve2.stdout) as { vms: ListedVm[] }).vms.map((vm) => vm.name)).to.deep.equal(['list-0007']);

    const bad = await cli(['list', '--state', 'running']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr.split('\n')[0]).to.equal('pve-provisioner list: --state must be one of present, absent');
    expect(bad.stdout).to.equal('');
  });

  it('get NAME shows the name and its job as the API does; --json one document; an unknown name exits 1, a bad one 2', async () => {
    h = createHarness('cli-get');
    await h.startWorker();
    const { jobId } = await h.client.createVm({ name: 'get-1', uid: 'u-get', userData: '#cloud-config\npassword: hunter2\n' });
    await h.client.waitForJob(jobId, { timeoutMs: 20_000 });

    const json = await cli(['get', 'get-1', '--json']);
    expect(json.code, json.stderr).to.equal(0);
    const shown = JSON.parse(json.stdout) as { name: string; uid: string; lastKnown?: { address?: string }; job?: { id: string; state: string } };
    expect(shown).to.deep.include({ name: 'get-1', uid: 'u-get' });
    expect(shown.job).to.deep.include({ id: jobId, state: 'completed' });
    expect(shown.lastKnown?.address).to.equal('192.0.2.10');
    expect(json.stdout, 'the user-data text').to.not.contain('hunter2');

    const text = await cli(['get', 'get-1']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(/^name:\s+get-1$/m).and.match(/^address:\s+192\.0\.2\.10$/m).and.match(new RegExp(`^job:\\s+${jobId} completed$`, 'm'));
    expect(text.stdout).to.not.contain('hunter2');

    const missing = await cli(['get', 'nobody-here']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.equal('pve-provisioner get: no VM named nobody-here is known\n');
    const badName = await cli(['get', 'Bad_Name']);
    expect(badName.code).to.equal(2);
    expect(badName.stderr.split('\n')[0]).to.contain('NAME "Bad_Name" is not a VM name');
  });

  it('list and get with Redis down exit 1 with one line naming the address, no stack trace, nothing on stdout', async () => {
    h = createHarness('cli-down');
    for (const args of [['list', '--json'], ['get', 'any-name']]) {
      const down = await cli(args, { REDIS_URL: 'redis://127.0.0.1:1', ...NO_CLUSTER_ENV });
      expect(down.code, args.join(' ')).to.equal(1);
      expect(down.stdout, args.join(' ')).to.equal('');
      expect(down.stderr, args.join(' ')).to.match(/^pve-provisioner: Redis at 127\.0\.0\.1:1 is not reachable \(connection refused\): [^\n]*\n$/);
    }
  });

  it('enqueue --wait --json prints each step, then the address, on stderr as the job reports them; stdout is one JSON document with the id inside', async () => {
    h = createHarness('cli-progress', { provider: { stepMs: 150 } });
    await h.startWorker();
    const run = await cli(['enqueue', 'create', '--name', 'progress-1', '--uid', 'u-p', '--wait', '--json']);
    expect(run.code, run.stderr).to.equal(0);
    const id = 'create-progress-1-1';
    expect(JSON.parse(run.stdout)).to.deep.include({ id, state: 'completed' });

    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.every((line) => line.startsWith(`job ${id}: `)), run.stderr).to.equal(true);
    const said = lines.map((line) => line.slice(`job ${id}: `.length));
    const steps = said.filter((line) => line.startsWith('step: '));
    expect(steps).to.deep.equal(CREATE_STEPS.map((step) => `step: ${step}`));
    expect(said.at(-1)).to.equal('address 192.0.2.10');
    expect(said).to.include('completed');
    expect(said.indexOf('completed')).to.be.greaterThan(said.indexOf(steps.at(-1) ?? ''));
  });

  it('list and get print what Redis holds with its control characters escaped: no escape sequence runs, no row or line is forged', async () => {
    h = createHarness('cli-escape');
    await h.client.createVm({ name: 'esc-1', uid: 'u-esc' });
    const registry = new DesiredStateRegistry(h.redis, h.prefix, h.config.registry.tombstoneSeconds);
    const node = 'pve1\u001b[2J\u001b]0;owned\u0007\r\nesc-0  present  Running';
    await registry.recordLastKnown('esc-1', { state: 'Running', node, vmid: 100001, address: '192.0.2.1\u009b31m\u202e', at: new Date().toISOString() });

    const list = await cli(['list']);
    expect(list.code, list.stderr).to.equal(0);
    expect(controlCharacters(list.stdout)).to.deep.equal([]);
    expect(list.stdout.trimEnd().split('\n')).to.have.length(2);
    expect(list.stdout).to.contain('pve1\\u001b[2J\\u001b]0;owned\\u0007\\r\\nesc-0  present  Running').and.contain('192.0.2.1\\u009b31m\\u202e');

    const get = await cli(['get', 'esc-1']);
    expect(get.code, get.stderr).to.equal(0);
    expect(controlCharacters(get.stdout)).to.deep.equal([]);
    expect(get.stdout).to.match(/^node:\s+pve1\\u001b\[2J\\u001b\]0;owned\\u0007\\r\\nesc-0 {2}present {2}Running$/m);

    for (const args of [['list', '--json'], ['get', 'esc-1', '--json']]) {
      const json = await cli(args);
      expect(controlCharacters(json.stdout), args.join(' ')).to.deep.equal([]);
      expect(json.stdout, args.join(' ')).to.contain('\\u009b31m\\u202e');
    }
    const listed = JSON.parse((await cli(['list', '--json'])).stdout) as { vms: ListedVm[] };
    expect(listed.vms[0]?.lastKnown?.node).to.equal(node);
  });
});
