// `pve-provisioner enqueue` and `pve-provisioner worker` (SPEC 6): exit
// 0 done, 1 failed job, 2 bad input naming the field; the worker command
// end to end against the simulator with the real provider.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { run as enqueue } from '../../src/cli/enqueue.js';
import { PermanentError } from '../../src/errors.js';
import { listLiveWorkers } from '../../src/queue/heartbeat.js';
import { startSimulator } from '../../src/sim/index.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { freePort } from '../support/free-port.js';
import { REDIS_URL, eventually } from '../support/redis.js';
import { sink } from '../support/sink.js';
import { controlCharacters } from '../support/terminal.js';


describe('pve-provisioner enqueue (SPEC 6)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('exits 2 on bad input, naming every bad field by its flag, and enqueues nothing', async () => {
    h = createHarness('cli-bad');
    const [stdout, stderr] = [sink(), sink()];
    const code = await enqueue(['create', '--name', 'Bad_Name', '--cores', 'many', '--vlan-tag', '9999'], { config: h.config, stdout, stderr });
    expect(code).to.equal(2);
    expect(stderr.text()).to.include('--name (name) must be a DNS label').and.include('--cores (cores) must be an integer').and.include('--vlan-tag (vlanTag) must be from 1 to 4094');
    expect(stdout.text()).to.equal('');
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed')).to.equal(0);
  });

  it('exits 2 for a user-data file that is not UTF-8, naming the flag', async () => {
    h = createHarness('cli-utf8');
    const dir = mkdtempSync(join(tmpdir(), 'enqueue-'));
    writeFileSync(join(dir, 'ud'), Buffer.from([0x23, 0xff, 0xfe]));
    const stderr = sink();
    const code = await enqueue(['create', '--name', 'ok-1', '--user-data', join(dir, 'ud')], { config: h.config, stdout: sink(), stderr });
    rmSync(dir, { recursive: true });
    expect(code).to.equal(2);
    expect(stderr.text()).to.include('--user-data').and.include('not UTF-8');
  });

  it('prints the job id, and with --wait --json the outcome as one JSON document holding the id: 0 when done, 1 when the job failed', async () => {
    h = createHarness('cli-wait', { provider: { createFailures: [new PermanentError('bad template', { reason: 'template 9001 has a cloud-init drive: remove it' })] } });
    await h.startWorker();
    const failed = [sink(), sink()] as const;
    expect(await enqueue(['create', '--name', 'cli-1', '--uid', 'u1', '--wait', '--json'], { config: h.config, stdout: failed[0], stderr: failed[1] })).to.equal(1);
    expect(failed[1].text()).to.include('template 9001 has a cloud-init drive: remove it');
    expect(JSON.parse(failed[0].text())).to.deep.include({ id: 'create-cli-1-1', state: 'failed' });

    const done = sink();
    expect(await enqueue(['create', '--name', 'cli-2', '--uid', 'u2', '--memory-mib', '1024', '--no-wait-for-address', '--wait', '--json'], { config: h.config, stdout: done, stderr: sink() })).to.equal(0);
    const outcome = JSON.parse(done.text()) as { id: string; state: string; result: { uid: string } };
    expect(outcome).to.deep.include({ id: 'create-cli-2-1', state: 'completed' });
    expect(outcome.result.uid).to.equal('u2');
    expect((await h.queues.vm.getJob('create-cli-2-1'))?.data).to.include({ memoryMiB: 1024, waitForAddress: false });

    const enqueued = sink();
    expect(await enqueue(['delete', '--name', 'cli-2', '--json'], { config: h.config, stdout: enqueued, stderr: sink() })).to.equal(0);
    expect(JSON.parse(enqueued.text())).to.deep.include({ id: 'delete-cli-2-2', name: 'cli-2', existing: false });
  });

  it('with --wait and no --json prints for a person: the id at once, then the job, its state and each field of the result, one per line', async () => {
    h = createHarness('cli-wait-text');
    await h.startWorker();
    const [stdout, stderr] = [sink(), sink()];
    expect(await enqueue(['create', '--name', 'cli-3', '--uid', 'u3', '--wait'], { config: h.config, stdout, stderr })).to.equal(0);
    const lines = stdout.text().trimEnd().split('\n');
    expect(lines[0]).to.equal('create-cli-3-1');
    expect(lines.slice(1, 3)).to.deep.equal(['job:       create-cli-3-1', 'state:     completed']);
    expect(lines).to.include('address:   192.0.2.10').and.include('uid:       u3');
    expect(stdout.text()).to.not.contain('{');
  });

  it('shows text a job brought back (a Proxmox exit status) with its control characters escaped: no escape sequence runs, no line is forged', async () => {
    const exitStatus = 'clone failed\u001b]0;owned\u0007\u001b[2J\r\njob create-cli-4-1: completed\u009b31m\u202egnp.exe';
    h = createHarness('cli-wait-escape', { provider: { createFailures: [new PermanentError(exitStatus, { reason: exitStatus }), new PermanentError(exitStatus, { reason: exitStatus })] } });
    await h.startWorker();
    const [stdout, stderr] = [sink(), sink()];
    expect(await enqueue(['create', '--name', 'cli-4', '--uid', 'u4', '--wait'], { config: h.config, stdout, stderr })).to.equal(1);
    const printed = `${stdout.text()}${stderr.text()}`;
    expect(printed).to.contain('clone failed\\u001b]0;owned\\u0007\\u001b[2J\\r\\njob create-cli-4-1: completed\\u009b31m\\u202egnp.exe');
    expect(controlCharacters(printed)).to.deep.equal([]);
    expect(printed.split('\n').filter((line) => line.startsWith('job create-cli-4-1: completed'))).to.deep.equal([]);

    const json = sink();
    expect(await enqueue(['create', '--name', 'cli-5', '--uid', 'u5', '--wait', '--json'], { config: h.config, stdout: json, stderr: sink() })).to.equal(1);
    expect(controlCharacters(json.text())).to.deep.equal([]);
    expect((JSON.parse(json.text()) as { failedReason: string }).failedReason).to.contain(exitStatus);
  });
});

describe('pve-provisioner worker (SPEC 6)', function () {
  this.timeout(40_000);
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('exits 1 with the reason when its start fails, instead of staying up with no worker (issue 16)', async () => {
    h = createHarness('cli-worker-fail');
    // BullMQ's HSET of the system queue's global concurrency meets a string: the start fails.
    await h.redis.set(`${h.prefix}:system:meta`, 'not a hash');
    const dir = mkdtempSync(join(tmpdir(), 'worker-'));
    writeFileSync(join(dir, 'token'), 'root@pam!worker-test=5b0a6a2e-3c1d-4c57-9d0e-6f1f5c0e2a11\n');
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, '../../src/cli.ts'), 'worker'], {
      env: { ...process.env, PVE_PROVISIONER_CONFIG: '', REDIS_URL, REDIS_PREFIX: h.config.redis.prefix, PROXMOX_URL: 'http://127.0.0.1:9', PROXMOX_TOKEN_FILE: join(dir, 'token'), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const code = await new Promise<number | null>((done) => child.once('exit', (exitCode) => done(exitCode)));
      expect(code).to.equal(1);
      expect(stderr).to.include('WRONGTYPE');
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true });
    }
  });

  it('runs creates against the simulator with the real provider, and exits 0 on SIGTERM', async () => {
    h = createHarness('cli-worker');
    const token = 'root@pam!worker-test=5b0a6a2e-3c1d-4c57-9d0e-6f1f5c0e2a11';
    const dir = mkdtempSync(join(tmpdir(), 'worker-'));
    writeFileSync(join(dir, 'token'), `${token}\n`);
    const sim = await startSimulator({ tokens: [token], port: 0, timeScale: 0.01, vms: 0 });
    const metricsPort = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, '../../src/cli.ts'), 'worker'], {
      env: {
        ...process.env,
        PVE_PROVISIONER_CONFIG: '',
        REDIS_URL,
        REDIS_PREFIX: h.config.redis.prefix,
        PROXMOX_URL: 'sim',
        PROXMOX_TOKEN_FILE: join(dir, 'token'),
        SIM_HOST: '127.0.0.1',
        SIM_PORT: String(sim.port),
        BUDGETS_POLL_MS: '20',
        BUDGETS_FIRST_ADDRESS_SECONDS: '0.3',
        LOG_LEVEL: 'warn',
        HTTP_HOST: '127.0.0.1',
        WORKER_METRICS_PORT: String(metricsPort),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      const { jobId } = await h.client.createVm({ name: 'e2e-1', uid: 'u-e2e', waitForAddress: false });
      const view = await h.client.waitForJob(jobId, { timeoutMs: 30_000 });
      expect(view.state, `${view.failedReason ?? ''}\n${stderr}`).to.equal('completed');
      // Without waitForAddress, running is the last step: the bar full.
      expect(view.progress).to.equal(100);
      expect(view.step).to.equal('running');
      expect(view.logs).to.include('step: cloned');
      const { vmid } = view.result as { vmid: number };
      expect([...sim.sim.state.allVms()].some((vm) => vm.vmid === vmid && vm.config.name === 'e2e-1')).to.equal(true);
      await eventually(async () => ((await listLiveWorkers(h.redis, h.prefix)).length > 0 ? true : undefined));
      // Run alone, the worker serves its own counters (SPEC 9).
      const scraped = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(scraped).to.match(/pvep_jobs_total\{[^}]*job_name="create"[^}]*\} 1/);
      expect(scraped).to.match(/pvep_proxmox_calls_total\{/);
      child.kill('SIGTERM');
      expect(await exited).to.equal(0);
    } finally {
      child.kill('SIGKILL');
      await sim.close();
      rmSync(dir, { recursive: true });
    }
  });
});
