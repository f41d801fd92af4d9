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
