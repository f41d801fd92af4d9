// SPEC 8: the simulator holds ten thousand VMs. Timings are measured and
// reported (docs), never asserted; this checks the answers stay right,
// including after changes, since the entries are cached per VM.
import { expect } from 'chai';
import { startTestSim, type TestSim } from './sim-helpers.js';

interface Resource {
  vmid: number;
  node: string;
  status: string;
  tags: string;
  uptime: number;
}

describe('simulator: ten thousand VMs (SPEC 8)', () => {
  let sim: TestSim;
  before(async () => {
    // pvestatd's 10 s cycle on, as a real cluster runs it (the test clock starts 3 s into a cycle).
    sim = await startTestSim({ vms: 10_000, statdSeconds: 10 });
  });
  after(async () => {
    await sim.close();
  });

  const resources = (): Promise<Resource[]> => sim.data<Resource[]>('GET', '/cluster/resources', { type: 'vm' });

  it('lists every VM, templates included, spread over the nodes', async () => {
    const all = await resources();
    // Two templates per node and the shared one; each VMID once in the cluster (SPEC 23).
    expect(all).to.have.length(10_005);
    expect(new Set(all.map((r) => r.vmid)).size).to.equal(10_005);
    expect(all.filter((r) => r.node === 'pv1-2')).to.have.length(5_002);
  });

  it('shows a change of tags in the next listing, of status and uptime at the next pvestatd cycle', async () => {
    const before = (await resources()).find((r) => r.vmid === 101);
    expect(before).to.include({ status: 'stopped', uptime: 0 });
    await sim.data('PUT', '/nodes/pv1-2/qemu/101/config', { tags: 'Changed' });
    expect((await resources()).find((r) => r.vmid === 101)).to.include({ tags: 'changed', status: 'stopped' });
    await sim.data('POST', '/nodes/pv1-2/qemu/101/status/start');
    sim.clock.advance(1);
    expect((await resources()).find((r) => r.vmid === 101)).to.include({ tags: 'changed', status: 'stopped' });
    // Started at :04, sampled at :10, then at :40.
    sim.clock.advance(6);
    expect((await resources()).find((r) => r.vmid === 101)).to.include({ tags: 'changed', status: 'running', uptime: 6 });
    sim.clock.advance(30);
    expect((await resources()).find((r) => r.vmid === 101)).to.include({ uptime: 36 });
  });
});
