// pvestatd's cycle in /cluster/resources (SPEC 23, audit 7): name, status
// and template come from the RRD sample pvestatd writes every
// sim.statdSeconds; lock and tags are read live and appear only when set.
import { expect } from 'chai';
import { startTestSim, type ResourceEntry, type TestSim } from './sim-helpers.js';

const Q = '/nodes/pv1-1/qemu';
const ID = 199999;

describe("simulator: pvestatd's cycle in /cluster/resources (audit 7)", () => {
  let sim: TestSim;
  beforeEach(async () => {
    // The test clock starts 3 s into a 10 s cycle.
    sim = await startTestSim({ statdSeconds: 10 });
  });
  afterEach(async () => {
    await sim.close();
  });

  const entry = async (vmid = ID): Promise<ResourceEntry | undefined> =>
    (await sim.data<ResourceEntry[]>('GET', '/cluster/resources', { type: 'vm' })).find((r) => r.vmid === vmid);

  it('keeps a finished clone nameless with status unknown until the next cycle, its lock gone at once', async () => {
    await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'fresh', full: 1 });
    expect(await entry()).to.deep.equal({ id: `qemu/${ID}`, type: 'qemu', vmid: ID, node: 'pv1-1', lock: 'clone', status: 'unknown' });
    sim.clock.advance(2);
    expect(await entry()).to.deep.equal({ id: `qemu/${ID}`, type: 'qemu', vmid: ID, node: 'pv1-1', tags: 'debian', status: 'unknown' });
    sim.clock.advance(5);
    expect(await entry()).to.include({ name: 'fresh', status: 'stopped', template: 0, tags: 'debian' });
  });

  it('shows a start at the next cycle, and a tag change at once', async () => {
    const running = (await sim.data<ResourceEntry[]>('GET', '/cluster/resources', { type: 'vm' })).find((r) => r.vmid === 100);
    expect(running).to.include({ status: 'running' });
    await sim.data('POST', `/nodes/pv1-2/qemu/101/status/start`);
    sim.clock.advance(1);
    await sim.data('PUT', `/nodes/pv1-2/qemu/101/config`, { tags: 'Live' });
    expect(await entry(101)).to.include({ status: 'stopped', tags: 'live' });
    sim.clock.advance(10);
    expect(await entry(101)).to.include({ status: 'running', tags: 'live' });
  });

  it('lists no tags key for a VM without tags', async () => {
    expect(await entry(101)).not.to.have.property('tags');
  });
});

// Audit 3.3 and 3.4 (SPEC 28): vmstatus names a config without a name
// `VM <vmid>` and pvestatd writes that into the RRD; pmxcfs keeps a
// destroyed VM's sample at its VMID for 5 minutes.
describe("simulator: what pvestatd wrote stays at the VMID (SPEC 28, audit 3.3, 3.4)", () => {
  let sim: TestSim;
  afterEach(async () => {
    await sim.close();
  });

  const entry = async (vmid = ID): Promise<ResourceEntry | undefined> =>
    (await sim.data<ResourceEntry[]>('GET', '/cluster/resources', { type: 'vm' })).find((r) => r.vmid === vmid);
  const fields = (r: ResourceEntry | undefined) => r && { name: r.name, status: r.status, lock: r.lock, template: r.template };
  const destroy = async (vmid = ID): Promise<void> => {
    await sim.data('DELETE', `${Q}/${vmid}`, { purge: 1 });
    sim.clock.advance(1);
  };

  describe('a clone that spans a cycle (16 s, its temporary config the first 8 s)', () => {
    beforeEach(async () => {
      // The test clock starts 3 s into a 10 s cycle: the clone runs 3..19, its first disk written at 11.
      sim = await startTestSim({ statdSeconds: 10, cloneSeconds: 16 });
    });

    it('is sampled as VM <vmid>, stopped, while locked; keeps that name with no lock after its task, its own at the next cycle', async () => {
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'fresh', full: 1 });
      sim.clock.advance(7);
      expect(fields(await entry())).to.deep.equal({ name: `VM ${ID}`, status: 'stopped', lock: 'clone', template: 0 });
      sim.clock.advance(9);
      expect(await entry()).to.include({ name: `VM ${ID}`, status: 'stopped', tags: 'debian' }).and.not.have.property('lock');
      sim.clock.advance(1);
      expect(fields(await entry())).to.deep.equal({ name: 'fresh', status: 'stopped', lock: undefined, template: 0 });
    });

    it('shows the temporary config sample even when nobody listed during the clone', async () => {
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'fresh', full: 1 });
      sim.clock.advance(16);
      expect(fields(await entry())).to.deep.equal({ name: `VM ${ID}`, status: 'stopped', lock: undefined, template: 0 });
    });

    it('a cycle after the first disk samples the real name, still stopped and locked', async () => {
      await sim.close();
      // A 30 s clone: 3..33, its first disk at 18, the cycle at 20 in between.
      sim = await startTestSim({ statdSeconds: 10, cloneSeconds: 30 });
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'fresh', full: 1 });
      sim.clock.advance(7);
      expect(await entry()).to.include({ name: `VM ${ID}`, lock: 'clone' });
      sim.clock.advance(10);
      expect(fields(await entry())).to.deep.equal({ name: 'fresh', status: 'stopped', lock: 'clone', template: 0 });
    });

    it('a clone that fails after its temporary config was sampled leaves VM <vmid> at its VMID for the next clone there', async () => {
      await sim.faults({ failTasks: [{ type: 'qmclone', exitstatus: 'clone failed: disk copy aborted', count: 1 }] });
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'fresh', full: 1 });
      sim.clock.advance(16);
      expect(await entry()).to.equal(undefined);
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'again', full: 1 });
      expect(fields(await entry())).to.deep.equal({ name: `VM ${ID}`, status: 'stopped', lock: 'clone', template: 0 });
    });
  });

  describe('a destroyed VM and its VMID reused (2 s clones)', () => {
    beforeEach(async () => {
      sim = await startTestSim({ statdSeconds: 10 });
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'old', full: 1 });
      sim.clock.advance(7);
      // t = 10: the cycle wrote `old`, stopped; the VM then starts (10..11), unsampled.
      expect(fields(await entry())).to.deep.equal({ name: 'old', status: 'stopped', lock: undefined, template: 0 });
      await sim.data('POST', `${Q}/${ID}/status/start`);
      sim.clock.advance(10);
      expect(fields(await entry())).to.deep.equal({ name: 'old', status: 'running', lock: undefined, template: 0 });
      await sim.data('POST', `${Q}/${ID}/status/stop`);
      sim.clock.advance(1);
    });

    it('leaves the listing at once; a new VM there shows the old name and status until its own first sample', async () => {
      // t = 21..22: the destroy; the cycle at 20 last wrote `old`, running.
      await destroy();
      expect(await entry()).to.equal(undefined);
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'new', full: 1 });
      expect(fields(await entry())).to.deep.equal({ name: 'old', status: 'running', lock: 'clone', template: 0 });
      sim.clock.advance(2);
      expect(fields(await entry())).to.deep.equal({ name: 'old', status: 'running', lock: undefined, template: 0 });
      sim.clock.advance(6);
      expect(fields(await entry())).to.deep.equal({ name: 'new', status: 'stopped', lock: undefined, template: 0 });
    });

    it('drops the old sample 5 minutes after its last write: a clone there is nameless and unknown again (F8)', async () => {
      await destroy();
      sim.clock.advance(300);
      await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'new', full: 1 });
      expect(await entry()).to.deep.equal({ id: `qemu/${ID}`, type: 'qemu', vmid: ID, node: 'pv1-1', lock: 'clone', status: 'unknown' });
    });
  });

  it('with statdSeconds 0 the listing is current: no old sample at a reused VMID, a clone in progress nameless (F8)', async () => {
    sim = await startTestSim({ statdSeconds: 0 });
    await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'old', full: 1 });
    sim.clock.advance(2);
    expect(await entry()).to.include({ name: 'old' });
    await destroy();
    await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'new', full: 1 });
    expect(await entry()).to.deep.equal({ id: `qemu/${ID}`, type: 'qemu', vmid: ID, node: 'pv1-1', lock: 'clone', status: 'unknown' });
  });

  it('names a config without a name VM <vmid> in /cluster/resources, the node listing and status/current (vmstatus)', async () => {
    sim = await startTestSim({ statdSeconds: 0 });
    await sim.control('POST', 'vms', { node: 'pv1-1', vmid: 4242, config: { cores: 1 } });
    expect(await entry(4242)).to.include({ name: 'VM 4242', status: 'stopped' });
    const listed = (await sim.data<{ vmid: number; name?: string }[]>('GET', Q)).find((v) => v.vmid === 4242);
    expect(listed).to.include({ name: 'VM 4242' });
    expect(await sim.data('GET', `${Q}/4242/status/current`)).to.include({ name: 'VM 4242' });
  });
});
