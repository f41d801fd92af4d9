// `verify --create` (SPEC 33) against the simulator over HTTP: one create
// per node with the provider a worker runs, its address, the delete, and
// nothing left behind: also when the create fails, and when it is
// interrupted while its clone is still running.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import type { Config } from '../../src/config/types.js';
import { silentLogger } from '../../src/log.js';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { decorateApi } from '../../src/proxmox/decorate.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { verifyCreate, type NodeCreateReport } from '../../src/verify/create/verify-create.js';
import { proxmoxApiFromConfig } from '../../src/worker/proxmox-api.js';
import { TOKEN } from '../sim/sim-helpers.js';

interface SimState {
  vms: { vmid: number; config: { template?: number; name?: string } }[];
  nodes: { node: string; storages: { storage: string; volumes: { volid: string }[] }[] }[];
}

describe('verify --create against the simulator (SPEC 33)', function () {
  this.timeout(120_000);
  let dir: string;
  let sim: RunningSimulator;
  let config: Config;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'verify-create-'));
    // cloneSeconds 300 at 0.01: a clone runs 3 s, long enough to be interrupted mid-way.
    sim = await startSimulator({ tokens: [TOKEN], nodes: ['pv1-1', 'pv1-2'], vms: 0, timeScale: 0.01, cloneSeconds: 300, statdSeconds: 0 });
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    config = loadConfig({
      env: {},
      overrides: {
        proxmox: {
          tokenFile,
          nodes: [
            { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' },
            { name: 'pv1-2', template: 9002, isoStorage: 'proxy-seeds' },
          ],
        },
        budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 },
      },
    });
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const state = async (): Promise<SimState> => (await (await fetch(`${sim.url}/_sim/state`)).json()) as SimState;

  async function expectNothingLeft(): Promise<void> {
    const now = await state();
    expect(now.vms.filter((vm) => Number(vm.config.template) !== 1).map((vm) => vm.vmid), 'VMs left').to.deep.equal([]);
    const isos = now.nodes.flatMap((n) => n.storages.flatMap((s) => s.volumes.map((v) => v.volid))).filter((volid) => volid.includes('verify-'));
    expect(isos, 'seeds left').to.deep.equal([]);
  }

  const run = (api: ProxmoxApi, signal: AbortSignal, nodes = ['pv1-1']): Promise<NodeCreateReport[]> =>
    verifyCreate({ config, api, logger: silentLogger(), nodes, signal });

  it('creates on each node, reaches an address, deletes, and reports every step with its calls', async () => {
    const started: string[] = [];
    const reports = await verifyCreate({
      config,
      api: proxmoxApiFromConfig(config, sim.url),
      logger: silentLogger(),
      nodes: ['pv1-1', 'pv1-2'],
      signal: new AbortController().signal,
      onStep: (step, node) => started.push(`${node} ${step}`),
    });
    expect(reports.map((r) => r.node)).to.deep.equal(['pv1-1', 'pv1-2']);
    for (const report of reports) {
      expect(report.checks.map((c) => [c.name, c.status])).to.deep.equal([
        [`create on ${report.node}`, 'ok'],
        [`delete on ${report.node}`, 'ok'],
        [`nothing left on ${report.node}`, 'ok'],
      ]);
      expect(report.address).to.be.a('string');
      expect(report.steps.map((s) => s.step)).to.deep.equal(['cloned', 'seeded', 'configured', 'resized', 'started', 'running', 'address', 'deleted', 'checked']);
      const calls = Object.fromEntries(report.steps.map((s) => [s.step, s.calls]));
      expect(calls.cloned?.clone).to.equal(1);
      expect(calls.seeded?.upload).to.equal(1);
      expect(calls.deleted?.destroy).to.equal(1);
      expect(calls.deleted?.deleteVolume).to.equal(1);
    }
    expect(started.slice(0, 3)).to.deep.equal(['pv1-1 cloned', 'pv1-1 seeded', 'pv1-1 configured']);
    await expectNothingLeft();
  });

  it('an image whose readiness is phone-home or tcp is verified through its guest agent: no web process to call, no lease to probe (SPEC 29)', async () => {
    const images = [
      { name: 'ph', readiness: 'phone-home', templates: { 'pv1-1': 9001 } },
      { name: 'probe', readiness: 'tcp', templates: { 'pv1-1': 9001 } },
    ];
    for (const image of images) {
      config = loadConfig({ env: {}, overrides: { proxmox: { ...config.proxmox, images: [image], defaultImage: image.name }, budgets: config.budgets, http: { publicUrl: 'http://127.0.0.1:9' } } });
      const [report] = await run(proxmoxApiFromConfig(config, sim.url), new AbortController().signal);
      expect(report?.checks.map((c) => [c.name, c.status, c.detail]), image.readiness).to.deep.include.members([['create on pv1-1', 'ok', report?.checks[0]?.detail]]);
      expect(report?.address, image.readiness).to.be.a('string');
    }
    await expectNothingLeft();
  });

  it('a create that fails is reported with its reason and what to do, and still leaves nothing', async () => {
    await fetch(`${sim.url}/_sim/faults`, { method: 'POST', body: JSON.stringify({ failTasks: [{ type: 'qmstart', exitstatus: 'start failed: QEMU exited with code 1', count: 1 }] }) });
    const [report] = await run(proxmoxApiFromConfig(config, sim.url), new AbortController().signal);
    const create = report?.checks[0];
    expect(create).to.include({ name: 'create on pv1-1', status: 'fail' });
    expect(create?.detail).to.match(/^failed after step resized: .*start failed: QEMU exited with code 1/);
    expect(create?.fix).to.be.a('string').and.not.equal('');
    expect(report?.checks.slice(1).map((c) => c.status)).to.deep.equal(['ok', 'ok']);
    await expectNothingLeft();
  });

  it('a delete Proxmox refuses is reported, and the VM and seed it left are named', async () => {
    // Someone protected the VM while the check ran: destroy_vm refuses it in its task (SPEC 28).
    await fetch(`${sim.url}/_sim/faults`, {
      method: 'POST',
      body: JSON.stringify({ failTasks: [{ type: 'qmdestroy', exitstatus: "can't remove VM 184648 - protection mode enabled", count: 1 }] }),
    });
    const [report] = await run(proxmoxApiFromConfig(config, sim.url), new AbortController().signal);
    expect(report?.checks.map((c) => [c.name, c.status])).to.deep.equal([
      ['create on pv1-1', 'ok'],
      ['delete on pv1-1', 'fail'],
      ['nothing left on pv1-1', 'fail'],
    ]);
    const left = report?.checks[2];
    expect(left?.detail).to.equal(`left behind: VM ${report?.vmid ?? 0} (${report?.name ?? ''}) on pv1-1, proxy-seeds:iso/${report?.name ?? ''}-seed.iso on pv1-1`);
    expect(left?.fix).to.match(/reconciler/);
  });

  it('interrupted while its clone runs, it waits the clone out and deletes it: nothing left', async () => {
    const interrupt = new AbortController();
    // Ctrl-C as soon as Proxmox accepted the clone: its task is still running.
    const api = decorateApi(proxmoxApiFromConfig(config, sim.url), async (call, send) => {
      const answer = await send(call.opts);
      if (call.name === 'clone') interrupt.abort(new Error('SIGINT'));
      return answer;
    });
    const reports = await run(api, interrupt.signal, ['pv1-1', 'pv1-2']);
    expect(reports.map((r) => r.node), 'no create on pv1-2 after the interrupt').to.deep.equal(['pv1-1']);
    const [report] = reports;
    expect(report?.checks.map((c) => [c.name, c.status])).to.deep.equal([
      ['create on pv1-1', 'fail'],
      ['delete on pv1-1', 'ok'],
      ['nothing left on pv1-1', 'ok'],
    ]);
    expect(report?.checks[0]?.detail).to.equal('interrupted before step cloned');
    expect(report?.checks[1]?.detail).to.match(/^VM \d+ and \d seed deleted/);
    await expectNothingLeft();
  });
});
