// SPEC 23 end to end: jobs through BullMQ (real Redis), the real provider
// and client, against the simulator over HTTP as a real cluster: VMIDs
// unique across nodes, the in-task collision, failures inside tasks.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { createProvider } from '../../src/provider/provider.js';
import type { NodeConfig } from '../../src/config/types.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { createHarness, type Harness } from '../support/harness.js';

const TOKEN = 'root@pam!provisioner=9d1c7a52-real-cluster-test';
const BUDGETS = { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 };

interface StateVm {
  vmid: number;
  node: string;
  config: Record<string, string | number>;
}

describe('jobs on a real cluster, as the simulator builds it (SPEC 23)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let tokenFile: string;
  let h: Harness | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-cluster-'));
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    sim = await startSimulator({ tokens: [TOKEN], nodes: ['pve1', 'pve2'], vms: 4, timeScale: 0.01 });
  });
  afterEach(async () => {
    await h?.close();
    h = undefined;
    await sim.close();
  });

  async function worker(nodes?: NodeConfig[]): Promise<Harness> {
    const harness = createHarness('cluster', { config: { proxmox: { url: sim.url, tokenFile, ...(nodes ? { nodes } : {}) }, budgets: BUDGETS } });
    const provider = createProvider({ api: createHttpApi({ baseUrl: sim.url, tokenFile }), config: harness.config, logger: silentLogger() });
    await harness.startWorker({ provider });
    h = harness;
    return harness;
  }

  async function state(): Promise<StateVm[]> {
    return ((await (await fetch(`${sim.url}/_sim/state`)).json()) as { vms: StateVm[] }).vms;
  }

  it('the default config passes its health check on the simulator, and the cluster never holds a VMID twice', async () => {
    const config = loadConfig({ env: {}, overrides: { proxmox: { url: sim.url, tokenFile } } });
    const provider = createProvider({ api: createHttpApi({ baseUrl: sim.url, tokenFile }), config, logger: silentLogger() });
    const report = await provider.health({ signal: new AbortController().signal });
    expect(report.map((n) => [n.node, n.ok, n.reasons])).to.deep.equal([['pve1', true, []], ['pve2', true, []]]);
    const vmids = (await state()).map((vm) => vm.vmid);
    expect(new Set(vmids).size).to.equal(vmids.length);
  });

  it('a create whose VMID a VM on the other node holds ends Running on the next free VMID; the foreign VM is untouched', async () => {
    const harness = await worker();
    const uid = 'a1b2c3d4-0000-4000-8000-00000000c023';
    const vmid = vmidForUid(uid, harness.config.proxmox.vmidRange);
    const planted = await fetch(`${sim.url}/_sim/vms`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ node: 'pve2', vmid, config: { name: 'someone-else', memory: 1024 }, status: 'running' }),
    });
    expect(planted.status).to.equal(200);
    const foreign = (await state()).find((vm) => vm.vmid === vmid);
    const { jobId } = await harness.client.createVm({ name: 'collide-1', uid, node: 'pve1', waitForAddress: true });
    const view = await harness.client.waitForJob(jobId, { timeoutMs: 40_000 });
    expect(view.state, view.failedReason).to.equal('completed');
    const result = view.result as { vmid: number; node: string; state: string; address?: string };
    expect(result).to.deep.include({ node: 'pve1', state: 'Running' });
    expect(result.vmid).to.not.equal(vmid);
    expect(result.address).to.be.a('string');
    const after = await state();
    expect(after.find((vm) => vm.vmid === vmid)).to.deep.equal(foreign);
    expect(after.filter((vm) => vm.config.name === 'collide-1')).to.have.length(1);
    const vmids = after.map((vm) => vm.vmid);
    expect(new Set(vmids).size).to.equal(vmids.length);
  });

  it('a resize refused inside its task for a missing privilege fails the job on its first attempt, naming the privilege', async () => {
    const harness = await worker();
    const fault = await fetch(`${sim.url}/_sim/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ denyAllocateSpace: ['local-lvm'] }) });
    expect(fault.status).to.equal(200);
    const { jobId } = await harness.client.createVm({ name: 'denied-1', node: 'pve1', diskGiB: 20, waitForAddress: false });
    const view = await harness.client.waitForJob(jobId, { timeoutMs: 20_000 });
    expect(view.state).to.equal('failed');
    expect(view.attemptsMade).to.equal(1);
    expect(view.failedReason).to.contain('the API token lacks Datastore.AllocateSpace on /storage/local-lvm');
  });

  it('a storage that does not exist fails the job at once, naming the config key that holds it', async () => {
    const harness = await worker([
      { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' },
      { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', storage: 'local-lvn' },
    ]);
    const { jobId } = await harness.client.createVm({ name: 'typo-1', node: 'pve2', waitForAddress: false });
    const view = await harness.client.waitForJob(jobId, { timeoutMs: 20_000 });
    expect(view.state).to.equal('failed');
    expect(view.attemptsMade).to.equal(1);
    expect(view.failedReason).to.contain("storage 'local-lvn' does not exist in the Proxmox cluster: fix proxmox.nodes[1].storage");
  });

  it('a node may clone a template that lives on another node on shared storage, with target', async () => {
    const harness = await worker([
      { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' },
      { name: 'pve2', template: { vmid: 9200, node: 'pve1' }, isoStorage: 'proxy-seeds' },
    ]);
    const { jobId } = await harness.client.createVm({ name: 'across-1', node: 'pve2', waitForAddress: false });
    const view = await harness.client.waitForJob(jobId, { timeoutMs: 20_000 });
    expect(view.state, view.failedReason).to.equal('completed');
    expect(view.result).to.deep.include({ node: 'pve2' });
    const made = (await state()).filter((vm) => vm.config.name === 'across-1');
    expect(made.map((vm) => vm.node)).to.deep.equal(['pve2']);
  });

  it('a template on another node with local disks fails the job at once with what to fix', async () => {
    const harness = await worker([
      { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' },
      { name: 'pve2', template: { vmid: 9001, node: 'pve1' }, isoStorage: 'proxy-seeds' },
    ]);
    const { jobId } = await harness.client.createVm({ name: 'across-2', node: 'pve2', waitForAddress: false });
    const view = await harness.client.waitForJob(jobId, { timeoutMs: 20_000 });
    expect(view.state).to.equal('failed');
    expect(view.attemptsMade).to.equal(1);
    expect(view.failedReason).to.match(/has disks on local storage, so Proxmox cannot clone it to pve2: give proxmox\.nodes\[1\]\.template a template on pve2/);
  });
});
