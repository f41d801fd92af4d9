// SPEC 33: `pve-provisioner verify --create --record DIR` as a process,
// interrupted with SIGINT while its clone runs: it deletes what it made
// (the clone waited out), exits 130, leaves nothing on the simulator, and
// its recording, index included, replays clean.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { loadRecording } from '../support/replay/load-recording.js';
import { differenceLines, replayRecording } from '../support/replay/replay.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TOKEN = 'root@pam!provisioner=0b7e5c2a-verify-sigint-secret';

interface SimState {
  vms: { vmid: number; config: { template?: number } }[];
  nodes: { storages: { volumes: { volid: string }[] }[] }[];
}

describe('verify --create --record interrupted with SIGINT mid-clone (SPEC 33)', function () {
  this.timeout(180_000);
  let dir: string;
  let sim: RunningSimulator;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'verify-sigint-'));
    // A clone runs 3 s (300 s at 0.01): the interrupt lands while it runs.
    sim = await startSimulator({ tokens: [TOKEN], nodes: ['pv1-1'], vms: 0, timeScale: 0.01, cloneSeconds: 300 });
  });
  after(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes what it made, exits 130, leaves nothing, and its recording replays clean', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const configFile = join(dir, 'config.json');
    const budgets = { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 };
    writeFileSync(configFile, JSON.stringify({ proxmox: { url: sim.url, tokenFile, nodes: [{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' }] }, budgets }));
    const recording = join(dir, 'recording');
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'verify', '--create', '--record', recording], {
      env: { ...process.env, PVE_PROVISIONER_CONFIG: configFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    // Interrupt once Proxmox has accepted the clone (its task is running).
    while (!sim.sim.requests.some((r) => r.method === 'POST' && r.path.endsWith('/clone') && r.status === 200)) {
      expect(child.exitCode, `verify ended before its clone:\n${stdout}\n${stderr}`).to.equal(null);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    const code = await exited;

    expect(code, `${stdout}\n${stderr}`).to.equal(130);
    expect(stderr).to.include('interrupted, cleaning up');
    expect(stdout).to.match(/^FAIL\s+create\s+create on pv1-1: interrupted/m);
    expect(stdout).to.match(/^ok\s+create\s+delete on pv1-1: VM \d+ and \d seed deleted/m);
    expect(stdout).to.match(/^ok\s+create\s+nothing left on pv1-1/m);
    expect(stdout + stderr).to.not.include('verify-sigint-secret');

    const state = (await (await fetch(`${sim.url}/_sim/state`)).json()) as SimState;
    expect(state.vms.filter((vm) => Number(vm.config.template) !== 1).map((vm) => vm.vmid), 'VMs left').to.deep.equal([]);
    const seeds = state.nodes.flatMap((n) => n.storages.flatMap((s) => s.volumes.map((v) => v.volid))).filter((v) => v.includes('verify-'));
    expect(seeds, 'seeds left').to.deep.equal([]);

    const result = await replayRecording(loadRecording(recording));
    expect(differenceLines(result)).to.deep.equal([]);
    expect(result.requests).to.be.above(20);
  });
});
