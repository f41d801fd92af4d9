// SPEC 28 (issue 27, audit 3.3, 3.4) end to end: the provider over HTTP
// against the simulator with pvestatd's cycle on (statdSeconds 10 on a
// clock the test moves). A clone sampled in its temporary config shows
// `VM <vmid>` after its task; a VMID reused within 5 minutes shows the
// destroyed VM's name. Neither gives a false NotFound, a VM the sweep
// misses, or a seed deleted from under its VM.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { formatMark } from '../../src/provider/mark.js';
import { createProvider } from '../../src/provider/provider.js';
import type { Provider } from '../../src/provider/types.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { startTestSim, TOKEN, type TestSim } from './sim-helpers.js';

const NAME = 'stale-one';
const UID = '5b2d7c1e-0a9f-4c3b-8e6d-1f2a3b4c5d6e';

describe('the provider over HTTP with pvestatd stale samples (SPEC 28)', () => {
  let sim: TestSim;
  let dir: string;
  let api: ProxmoxApi;
  let provider: Provider;
  let vmid: number;
  let ticking: NodeJS.Timeout | undefined;
  const ctx = { signal: new AbortController().signal };

  async function start(cloneSeconds: number): Promise<void> {
    sim = await startTestSim({ statdSeconds: 10, cloneSeconds, vms: 0 });
    dir = mkdtempSync(join(tmpdir(), 'stale-e2e-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const config = loadConfig({
      env: {},
      overrides: {
        proxmox: { tokenFile, nodes: [{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' }] },
        budgets: { pollMs: 5, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30 },
      },
    });
    api = createHttpApi({ baseUrl: sim.url, tokenFile });
    provider = createProvider({ api, config, logger: silentLogger() });
    vmid = vmidForUid(UID, config.proxmox.vmidRange);
  }

  afterEach(async () => {
    clearInterval(ticking);
    ticking = undefined;
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Our clone, as a create's clone call makes it (SPEC 13 step 3), and its seed. */
  async function cloneOurs(): Promise<void> {
    await api.upload('pv1-1', 'proxy-seeds', `${NAME}-seed.iso`, { size: 10, open: () => Readable.from([Buffer.alloc(10)]) });
    await api.clone('pv1-1', 9001, { newid: vmid, name: NAME, description: formatMark(UID, new Date(sim.clock.ms)), full: true });
  }

  const listed = async () => (await api.clusterResources('vm')).find((r) => r.vmid === vmid);
  const seeds = async () => (await api.storageContent('pv1-1', 'proxy-seeds', 'iso')).map((v) => v.volid);

  /** Lets simulated time run (1 s each 5 ms) so the delete's tasks end; the stale listing was read before. */
  function letTimeRun(): void {
    ticking = setInterval(() => sim.clock.advance(1), 5);
  }

  /** `known`: the registry's lastKnown for the name (SPEC 26), which a reused VMID's old name needs to be read. */
  async function judgedRight(known: boolean): Promise<void> {
    expect(await provider.get({ name: NAME, uid: UID }, ctx)).to.include({ state: 'Stopped', vmid });
    const swept = await provider.listTaggedOrNamed([NAME], ctx, known ? [{ name: NAME, uid: UID, vmid, node: 'pv1-1' }] : []);
    expect(swept.map((v) => ({ vmid: v.vmid, name: v.name, uid: v.uid, ours: v.ours }))).to.deep.equal([{ vmid, name: NAME, uid: UID, ours: true }]);
    const gets = sim.sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/qemu/${vmid}/config`)).length;
    expect(gets, 'one config read for Get, one for the sweep listing').to.equal(2);
    letTimeRun();
    expect(await provider.delete({ name: NAME, uid: UID }, ctx)).to.deep.equal({ deleted: true, vmid, seedsDeleted: 1 });
    expect(await listed()).to.equal(undefined);
    expect(await seeds()).to.deep.equal([]);
  }

  /**
   * Lets simulated time run only once the create has tried its clone (answered
   * F4 at once, as the VMID is taken), so its look-up by name (step 1) saw
   * the stale sample the test set up.
   */
  function letTimeRunAfterCloneTry(): void {
    const clonesBefore = sim.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/clone')).length;
    ticking = setInterval(() => {
      if (sim.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/clone')).length > clonesBefore) sim.clock.advance(1);
    }, 5);
  }

  /** A create of the name run again (its job lost the clone, or the sweep enqueued it again, SPEC 13): it adopts, one VM stays. */
  async function createdAgainOnce(): Promise<void> {
    const lines: string[] = [];
    letTimeRunAfterCloneTry();
    const created = await provider.create(
      { name: NAME, uid: UID, cores: 2, memoryMiB: 2048, diskGiB: 10, userData: '#cloud-config\n', waitForAddress: false },
      { ...ctx, log: (line) => void lines.push(line) },
    );
    expect(created).to.include({ vmid, node: 'pv1-1' });
    // Step 1 missed it under the stale sample; the clone's F4 and the config read adopted it.
    expect(lines).to.include(`adopted VM ${vmid} on pv1-1, already ours`);
    sim.sim.settle();
    const named = [...sim.sim.state.allVms()].filter((vm) => vm.config.name === NAME);
    expect(named.map((vm) => vm.vmid), 'one VM for the name').to.deep.equal([vmid]);
    expect(named[0]?.status).to.equal('running');
  }

  it('a clone sampled as VM <vmid>: Get answers Stopped, the sweep sees it by its config, Delete removes it with its seed', async () => {
    // A 16 s clone 3 s into a cycle: the cycle at 10 s samples its temporary config; it ends at 19 s.
    await start(16);
    await cloneOurs();
    sim.clock.advance(16);
    expect(await listed()).to.include({ name: `VM ${vmid}`, status: 'stopped' }).and.not.have.property('lock');
    await judgedRight(false);
  });

  it("a reused VMID showing the destroyed VM's name: the same", async () => {
    await start(2);
    await api.clone('pv1-1', 9001, { newid: vmid, name: 'someone-old', description: 'made by hand', full: true });
    sim.clock.advance(7);
    expect(await listed()).to.include({ name: 'someone-old' });
    await api.destroy('pv1-1', vmid, { purge: true, destroyUnreferencedDisks: true });
    sim.clock.advance(1);
    await cloneOurs();
    sim.clock.advance(2);
    expect(await listed()).to.include({ name: 'someone-old', status: 'stopped' }).and.not.have.property('lock');
    await judgedRight(true);
  });

  describe('a create run again while the listing shows the stale sample: no duplicate (SPEC 13, SPEC 28)', () => {
    it('behind VM <vmid>', async () => {
      await start(16);
      await cloneOurs();
      sim.clock.advance(16);
      expect(await listed()).to.include({ name: `VM ${vmid}` }).and.not.have.property('lock');
      await createdAgainOnce();
    });

    it("behind the destroyed VM's name", async () => {
      await start(2);
      await api.clone('pv1-1', 9001, { newid: vmid, name: 'someone-old', description: 'made by hand', full: true });
      sim.clock.advance(7);
      await api.destroy('pv1-1', vmid, { purge: true, destroyUnreferencedDisks: true });
      sim.clock.advance(1);
      await cloneOurs();
      sim.clock.advance(2);
      expect(await listed()).to.include({ name: 'someone-old' }).and.not.have.property('lock');
      await createdAgainOnce();
    });
  });

  it('nameless foreign VMs with a disk in our range cost no config read: Get, Delete, the sweep and a look-up by name (SPEC 26, SPEC 28)', async () => {
    await start(2);
    const foreign = Array.from({ length: 200 }, (_, i) => 150000 + i).filter((v) => v !== vmid);
    for (const v of foreign) await sim.control('POST', 'vms', { node: 'pv1-1', vmid: v, config: { scsi0: `local-lvm:vm-${v}-disk-0,size=4G` } });
    await cloneOurs();
    sim.clock.advance(10);
    const shown = (await api.clusterResources('vm')).filter((r) => foreign.includes(r.vmid ?? 0));
    expect(shown.map((r) => r.name), 'pvestatd names them VM <vmid>').to.deep.equal(foreign.map((v) => `VM ${v}`));
    const foreignReads = () => sim.sim.requests.filter((r) => r.method === 'GET' && foreign.some((v) => r.path.endsWith(`/qemu/${v}/config`))).length;
    expect(await provider.get({ name: NAME, uid: UID }, ctx)).to.include({ state: 'Stopped', vmid });
    expect(await provider.findByName(NAME, ctx)).to.have.length(1);
    expect(await provider.listTaggedOrNamed([NAME, 'another-name'], ctx, [])).to.have.length(1);
    letTimeRun();
    expect(await provider.delete({ name: NAME }, ctx)).to.include({ deleted: true, vmid });
    expect(foreignReads()).to.equal(0);
  });
});
