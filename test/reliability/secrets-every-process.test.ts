// SPEC 22 "Secrets" across processes: a worker process redacts the API
// tokens of http.apiTokensFile although it never uses them. A real
// `pve-provisioner worker` (its own process, so nothing the test process
// read is known to it) runs a create against the simulator, whose clone
// answers an error echoing a sentinel API token; the token appears in
// none of the worker's output, the job's failure and logs in Redis, or the
// API's answer, while the failure still carries the rest of the text. The
// web process's job and VM views redact again what a worker wrote
// unredacted.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { keys } from '../../src/redis-keys.js';
import { buildTestWeb, type TestWeb } from '../web/helpers.js';
import { REDIS_URL, eventually } from '../support/redis.js';

const PROXMOX_TOKEN = 'root@pam!pvep=3f0c9a7e-51b2-4d86-a1e4-7c2b9d0e6f15';

describe('secrets redacted in every process (SPEC 22)', function () {
  this.timeout(120_000);
  let web: TestWeb;
  let sim: RunningSimulator;
  let worker: ChildProcess;
  let dir: string;
  let output = '';

  before(async () => {
    // The producer sets a job's attempts: one, so the failure is final at once.
    web = await buildTestWeb({}, { env: { JOBS_ATTEMPTS: '1' } });
    dir = mkdtempSync(join(tmpdir(), 'pvep-every-process-'));
    const tokenFile = join(dir, 'proxmox-token');
    writeFileSync(tokenFile, `${PROXMOX_TOKEN}\n`, { mode: 0o600 });
    sim = await startSimulator({ tokens: [PROXMOX_TOKEN], port: 0, timeScale: 0.01, statdSeconds: 0 });
    // A Proxmox error text that quotes what a caller pasted: the caller's API token.
    sim.sim.faults.replace({ errors: [{ path: '/clone$', rate: 1, status: 500, message: `clone refused near ${web.token} in the request` }] });
    worker = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, '../../src/cli.ts'), 'worker'], {
      env: {
        ...process.env,
        PVE_PROVISIONER_CONFIG: '',
        REDIS_URL,
        REDIS_PREFIX: web.config.redis.prefix,
        PROXMOX_URL: sim.url,
        PROXMOX_TOKEN_FILE: tokenFile,
        HTTP_API_TOKENS_FILE: web.config.http.apiTokensFile,
        HTTP_BOARD_USERS_FILE: web.config.http.boardUsersFile,
        HTTP_FINGERPRINT_KEY_FILE: web.config.http.fingerprintKeyFile,
        JOBS_ATTEMPTS: '1',
        BUDGETS_POLL_MS: '20',
        BUDGETS_FIRST_ADDRESS_SECONDS: '0.3',
        LOG_LEVEL: 'trace',
        LOG_PRETTY: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(() => Promise.resolve(output.includes('workers started') ? true : undefined), 60_000);
  });

  after(async () => {
    if (worker.exitCode === null) {
      const exited = new Promise((done) => worker.once('exit', done));
      worker.kill('SIGTERM');
      await exited;
    }
    await sim.close();
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an API token echoed by a Proxmox error reaches neither the worker log, the job in Redis nor the API', async () => {
    const created = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}` }, payload: { name: 'leak-1', waitForAddress: false } });
    const { jobId } = created.json<{ jobId: string }>();
    const answer = await eventually(async () => {
      const res = await web.app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: { authorization: `Bearer ${web.token}` } });
      return res.json<{ state: string }>().state === 'failed' ? res.body : undefined;
    }, 40_000).catch((err: unknown) => {
      process.stderr.write(output.slice(-4000));
      throw err;
    });
    const job = await web.queues.vm.getJob(jobId);
    const stored = [job?.failedReason ?? '', ...(job?.stacktrace ?? []), ...(await web.queues.vm.getJobLogs(jobId)).logs].join('\n');
    expect(stored, 'the failure the worker wrote').to.include('clone refused near [REDACTED] in the request');
    expect(stored, 'the failure the worker wrote').not.to.include(web.token);
    expect(output, 'the worker process output').to.include('clone refused');
    expect(output, 'the worker process output').not.to.include(web.token);
    expect(answer, 'GET /v1/jobs/:id').not.to.include(web.token);
  });

  it('a failure and a log line holding the token, as a worker that did not know it wrote them, are redacted in the API answer', async () => {
    const created = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}` }, payload: { name: 'leak-2', waitForAddress: false } });
    const { jobId } = created.json<{ jobId: string }>();
    await eventually(async () => ((await web.queues.vm.getJobState(jobId)) === 'failed' ? true : undefined), 40_000);
    await web.redis.hset(web.queues.vm.toKey(jobId), 'failedReason', `older worker: ${web.token}`);
    await web.queues.vm.getJob(jobId).then((job) => job?.log(`older worker log: ${web.token}`));
    const res = await web.app.inject({ method: 'GET', url: `/v1/jobs/${jobId}`, headers: { authorization: `Bearer ${web.token}` } });
    const view = res.json<{ failedReason: string; logs: string[] }>();
    expect(view.failedReason).to.equal('older worker: [REDACTED]');
    expect(view.logs).to.include('older worker log: [REDACTED]');
    expect(res.body).not.to.include(web.token);
    // The VM's recorded Permanent failure, as such a worker wrote it into the registry.
    await web.redis.hset(keys.desired(web.prefix, 'leak-2'), 'failed', JSON.stringify({ reason: `older worker: ${web.token}`, jobId, generation: 1, at: new Date().toISOString() }));
    const vm = await web.app.inject({ method: 'GET', url: '/v1/vms/leak-2', headers: { authorization: `Bearer ${web.token}` } });
    expect(vm.json<{ failed?: { reason: string } }>().failed?.reason).to.equal('older worker: [REDACTED]');
    expect(vm.body).not.to.include(web.token);
  });
});
