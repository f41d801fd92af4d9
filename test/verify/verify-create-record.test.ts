// SPEC 33, the issue's done-when: `pve-provisioner verify --create --record
// DIR` against the simulator, through the command's run() (its recorder,
// its create): nothing is left behind and the recording it wrote, fresh
// each run with its own timing, replays clean. Interrupted with SIGINT:
// verify-sigint.test.ts, as a process.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sinon from 'sinon';
import { run } from '../../src/cli/verify.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { loadRecording } from '../support/replay/load-recording.js';
import { differenceLines, replayRecording } from '../support/replay/replay.js';

const TOKEN = 'root@pam!provisioner=0b9e6c52-create-record-secret';

interface SimState {
  vms: { vmid: number; config: { template?: number } }[];
  nodes: { storages: { volumes: { volid: string }[] }[] }[];
}

describe('verify --create --record against the simulator, through the command (SPEC 33)', function () {
  this.timeout(120_000);
  let dir: string;
  let sim: RunningSimulator;
  let savedConfig: string | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-verify-record-'));
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    savedConfig = process.env.PVE_PROVISIONER_CONFIG;
    sim = await startSimulator({ tokens: [TOKEN], nodes: ['pve1'], vms: 0, timeScale: 0.01, proxyWorkers: 0, daemonWorkers: 0, statdSeconds: 0 });
    const budgets = { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ proxmox: { url: sim.url, tokenFile: join(dir, 'token'), nodes: [{ name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' }] }, budgets }));
    process.env.PVE_PROVISIONER_CONFIG = join(dir, 'config.json');
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
    if (savedConfig === undefined) delete process.env.PVE_PROVISIONER_CONFIG;
    else process.env.PVE_PROVISIONER_CONFIG = savedConfig;
  });

  /** Runs the command with stdout and stderr caught. */
  async function verify(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const out = sinon.stub(process.stdout, 'write').callsFake((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
    const err = sinon.stub(process.stderr, 'write').callsFake((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
    try {
      return { code: await run(args), stdout, stderr };
    } finally {
      out.restore();
      err.restore();
    }
  }

  async function expectNothingLeft(): Promise<void> {
    const state = (await (await fetch(`${sim.url}/_sim/state`)).json()) as SimState;
    expect(state.vms.filter((vm) => Number(vm.config.template) !== 1).map((vm) => vm.vmid), 'VMs left').to.deep.equal([]);
    const volids = state.nodes.flatMap((n) => n.storages.flatMap((s) => s.volumes.map((v) => v.volid)));
    expect(volids.filter((v) => v.includes('verify-')), 'seeds or probes left').to.deep.equal([]);
  }

  it('leaves nothing behind, and its recording replays clean', async () => {
    const recording = join(dir, 'rec');
    const ran = await verify(['--create', '--record', recording]);
    expect(ran.code, ran.stdout).to.equal(0);
    expect(ran.stdout).to.match(/^ok {4}create {5}nothing left on pve1: /m);
    await expectNothingLeft();
    const loaded = loadRecording(recording);
    expect(loaded.index.exchanges.some((e) => e.path.endsWith('/clone'))).to.equal(true);
    expect(loaded.index.exchanges.some((e) => e.path === '/access/permissions')).to.equal(true);
    const result = await replayRecording(loaded);
    expect(differenceLines(result)).to.deep.equal([]);
  });
});
