// The provider logs through the job's own logger (SPEC 9): a line it
// writes while a job runs carries that job's id, job name and VM name,
// so one job's story can be read out of a worker's interleaved logs; so
// does the debug line of each Proxmox call the job makes.
import { expect } from 'chai';
import { ownJobId } from '../../src/job-table/job-ids.js';
import { createProvider } from '../../src/provider/provider.js';
import { observeApi } from '../../src/proxmox/observed-api.js';
import { DEFAULT_NODE, DEFAULT_TEMPLATE, FakeProxmox, SEED_STORAGE } from '../fakes/fake-proxmox.js';
import { captureLogger } from '../support/capture-logger.js';
import { createHarness, type Harness } from '../support/harness.js';

describe('the job-scoped logger (SPEC 9, SPEC 16)', function () {
  let h: Harness;
  let fake: FakeProxmox;
  let records: Record<string, unknown>[];

  beforeEach(async () => {
    h = createHarness('job-logger', {
      config: { jobs: { attempts: 1 }, proxmox: { nodes: [{ name: DEFAULT_NODE, template: DEFAULT_TEMPLATE, isoStorage: SEED_STORAGE }] } },
    });
    fake = new FakeProxmox();
    const captured = captureLogger();
    records = captured.records;
    // One logger for the process, and the debug line of each call, as `worker` and `all` build them.
    const api = observeApi(fake, captured.logger);
    const provider = createProvider({ api, config: h.config, logger: captured.logger, sleep: () => Promise.resolve() });
    await h.startWorker({ provider, logger: captured.logger });
  });

  afterEach(async () => {
    await h.close();
  });

  it("a provider line written during a create carries the job's id, job name and VM name", async () => {
    // A start that fails ends the attempt (jobs.attempts 1) after the provider's warn line.
    fake.setNextTaskOutcome('qmstart', { exitstatus: 'start failed: QEMU exited with code 1' });
    const { jobId } = await h.client.createVm({ name: 'logged-1', uid: 'u1', waitForAddress: false });
    const view = await h.client.waitForJob(jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('failed');
    const line = records.find((r) => r.msg === 'proxmox task failed');
    expect(line, 'the provider logged the failed task').to.not.equal(undefined);
    expect(line).to.include({ jobId, job: 'create', vm: 'logged-1', exitstatus: 'start failed: QEMU exited with code 1' });
  });

  it("the debug line of each Proxmox call a create makes carries the job's id", async () => {
    const { jobId } = await h.client.createVm({ name: 'logged-2', uid: 'u2', waitForAddress: false });
    const view = await h.client.waitForJob(jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
    const calls = records.filter((r) => r.msg === 'proxmox api call');
    const clone = calls.find((r) => r.call === 'clone');
    expect(clone, 'the clone call was logged').to.not.equal(undefined);
    expect(clone).to.include({ jobId, job: 'create', vm: 'logged-2' });
    const start = calls.find((r) => r.call === 'start');
    expect(start).to.include({ jobId });
  });

  it("the Proxmox calls of a reconcile job's sweep carry the reconcile job's id", async () => {
    const job = await h.queues.system.add('reconcile', { dryRun: true }, { jobId: ownJobId('reconcile') });
    const view = await h.client.waitForJob(job.id ?? '', { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
    const calls = records.filter((r) => r.msg === 'proxmox api call');
    expect(calls, 'the sweep listed Proxmox').to.not.have.length(0);
    expect(calls.map((r) => r.jobId)).to.deep.equal(calls.map(() => job.id));
  });

  it("no line of a create carries its userData or networkConfig text: the job's logger binds ids and the VM name only", async () => {
    const userData = '#cloud-config\npassword: user-data-marker-7f3a\n';
    const networkConfig = 'version: 2 # network-config-marker-9c1e\n';
    const { jobId } = await h.client.createVm({ name: 'logged-3', uid: 'u3', waitForAddress: false, userData, networkConfig });
    const view = await h.client.waitForJob(jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
    expect(records.some((r) => r.jobId === jobId), 'the job wrote lines').to.equal(true);
    const written = records.map((r) => JSON.stringify(r)).join('\n');
    expect(written).to.not.include('user-data-marker-7f3a');
    expect(written).to.not.include('network-config-marker-9c1e');
  });
});
