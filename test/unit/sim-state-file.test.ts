// sim.stateFile (SPEC 24), the file itself: what close() writes is what
// the next start loads, a change is written on the debounce, and a file
// that is not a state file stops the start with a line saying what to do.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withSimStateFile } from '../../src/cli/all.js';
import { loadConfig } from '../../src/config/index.js';
import { startSimulator } from '../../src/sim/index.js';
import { StateFileError, keepStateIn } from '../../src/sim/state-file.js';

const TOKEN = 'root@pam!t=00000000-0000-0000-0000-000000000000';

describe('sim.stateFile (SPEC 24)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-simstate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const vmids = (running: { sim: { state: { allVms(): Iterable<{ vmid: number }> } } }): number[] => [...running.sim.state.allVms()].map((vm) => vm.vmid).sort();

  it('close() writes the state, and the next start loads it instead of a fresh population', async () => {
    const file = join(dir, 'state', 'sim.json');
    const first = await keepStateIn(await startSimulator({ tokens: [TOKEN], vms: 2 }), file, { debounceMs: 3_600_000 });
    expect(first.loaded).to.equal(undefined);
    const template = [...first.sim.state.allVms()][0];
    if (template === undefined) throw new Error('no VM to copy');
    first.sim.state.addVm({ ...template, vmid: 123456, config: { ...template.config, name: 'only-in-memory' } });
    const storage = first.sim.state.storage('pve1', 'proxy-seeds');
    storage.volumes.set('proxy-seeds:iso/x-seed.iso', { volid: 'proxy-seeds:iso/x-seed.iso', content: 'iso', format: 'iso', size: 3, ctime: 1, sha256: 'ab' });
    const expected = vmids(first);
    await first.close();

    const second = await keepStateIn(await startSimulator({ tokens: [TOKEN], vms: 7 }), file);
    try {
      expect(vmids(second)).to.deep.equal(expected);
      expect(second.loaded).to.deep.equal({ vms: expected.length, volumes: 1 });
      expect(second.sim.state.storage('pve1', 'proxy-seeds').volumes.get('proxy-seeds:iso/x-seed.iso')).to.include({ size: 3 });
    } finally {
      await second.close();
    }
  });

  it("leaves an ISO's kept bytes out of the file: after a restart the volume is metadata only (SPEC 29)", async () => {
    const file = join(dir, 'sim.json');
    const first = await keepStateIn(await startSimulator({ tokens: [TOKEN], vms: 0 }), file, { debounceMs: 3_600_000 });
    const volid = 'proxy-seeds:iso/x-seed.iso';
    first.sim.state.storage('pve1', 'proxy-seeds').volumes.set(volid, { volid, content: 'iso', format: 'iso', size: 3, ctime: 1, sha256: 'ab', bytes: Buffer.from('iso') });
    await first.close();
    expect(readFileSync(file, 'utf8')).not.to.include('"bytes"');
    const second = await keepStateIn(await startSimulator({ tokens: [TOKEN], vms: 0 }), file);
    try {
      const volume = second.sim.state.storage('pve1', 'proxy-seeds').volumes.get(volid);
      expect(volume).to.include({ size: 3, sha256: 'ab' });
      expect(volume?.bytes).to.equal(undefined);
    } finally {
      await second.close();
    }
  });

  it('writes a change within the debounce after a request, before close', async () => {
    const file = join(dir, 'sim.json');
    const running = await keepStateIn(await startSimulator({ tokens: [TOKEN], vms: 0 }), file, { debounceMs: 20 });
    try {
      const template = [...running.sim.state.allVms()][0];
      if (template === undefined) throw new Error('no VM to copy');
      running.sim.state.addVm({ ...template, vmid: 222222, config: { ...template.config, name: 'after-request' } });
      await fetch(`${running.url}/api2/json/version`, { headers: { Authorization: `PVEAPIToken=${TOKEN}` } });
      for (let i = 0; i < 100 && !readFileSync(file, 'utf8').includes('after-request'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(readFileSync(file, 'utf8')).to.include('after-request');
    } finally {
      await running.close();
    }
  });

  it('a file that is not a state file stops the start, naming the file and what to do', async () => {
    const file = join(dir, 'sim.json');
    writeFileSync(file, '{"vms": "no"}');
    const started = await startSimulator({ tokens: [TOKEN] });
    try {
      const err = await keepStateIn(started, file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(StateFileError);
      expect((err as Error).message).to.include(file).and.include('remove it');
    } finally {
      await started.close();
    }
  });
});

describe('pve-provisioner all keeps the simulator state in var/sim-state.json by default (SPEC 24)', () => {
  it('sets sim.stateFile when config leaves it empty, and leaves a set key or SIM_STATE_FILE alone', () => {
    const config = loadConfig({ env: {} });
    expect(withSimStateFile(config, {}).sim.stateFile).to.equal('var/sim-state.json');
    expect(withSimStateFile(config, { SIM_STATE_FILE: '' }).sim.stateFile).to.equal('');
    const set = loadConfig({ env: {}, overrides: { sim: { stateFile: '/srv/sim.json' } } });
    expect(withSimStateFile(set, {}).sim.stateFile).to.equal('/srv/sim.json');
  });
});
