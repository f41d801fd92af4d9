// The job service over the real provider and the in-memory Proxmox of
// test/fakes (the seam, SPEC 18): the newest intent wins on real VMs.
import { expect } from 'chai';
import { silentLogger } from '../../src/log.js';
import { createProvider } from '../../src/provider/provider.js';
import { DEFAULT_NODE, DEFAULT_TEMPLATE, FakeProxmox, SEED_STORAGE } from '../fakes/fake-proxmox.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

describe('job service over the real provider (SPEC 2, 13, 15)', function () {
  let h: Harness;
  let fake: FakeProxmox;

  beforeEach(async () => {
    h = createHarness('real', { config: { proxmox: { nodes: [{ name: DEFAULT_NODE, template: DEFAULT_TEMPLATE, isoStorage: SEED_STORAGE }] } } });
    fake = new FakeProxmox();
    const provider = createProvider({ api: fake, config: h.config, logger: silentLogger(), sleep: () => Promise.resolve() });
    await h.startWorker({ provider });
  });

  afterEach(async () => {
    await h.close();
  });

  const named = (name: string): number => [...fake.vms.values()].filter((vm) => vm.config.name === name).length;

  it('create, delete, create of one name, and the same create again: one running VM', async () => {
    const requests = [
      await h.client.createVm({ name: 'real-1', uid: 'u1', waitForAddress: false }),
      await h.client.deleteVm({ name: 'real-1' }),
      await h.client.createVm({ name: 'real-1', uid: 'u1', waitForAddress: false }),
      await h.client.createVm({ name: 'real-1', uid: 'u1', waitForAddress: false }),
    ];
    expect(requests[3]).to.include({ existing: true, jobId: requests[2]?.jobId });
    const views = await Promise.all(requests.map((r) => h.client.waitForJob(r.jobId, { timeoutMs: 10_000 })));
    expect(views.map((v) => v.state)).to.deep.equal(['completed', 'completed', 'completed', 'completed']);
    expect(named('real-1')).to.equal(1);
    const result = views[2]?.result as { vmid: number; state: string };
    expect(fake.vms.get(result.vmid)?.status).to.equal('running');
  });

  it('create, then delete and create with another uid at once: the new uid\'s VM replaces the old one (SPEC 2)', async () => {
    const first = await h.client.createVm({ name: 'real-3', uid: 'u3-old', waitForAddress: false });
    expect((await h.client.waitForJob(first.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    // The delete is superseded by the newer create before it can run, so
    // the create meets the old uid's VM under its name.
    const requests = [await h.client.deleteVm({ name: 'real-3' }), await h.client.createVm({ name: 'real-3', uid: 'u3-new', waitForAddress: false })];
    const views = await Promise.all(requests.map((r) => h.client.waitForJob(r.jobId, { timeoutMs: 10_000 })));
    expect(views.map((v) => v.state), views[1]?.failedReason).to.deep.equal(['completed', 'completed']);
    const left = [...fake.vms.values()].filter((vm) => vm.config.name === 'real-3');
    expect(left).to.have.length(1);
    expect(left[0]?.config.description).to.include('uid: u3-new');
    expect(views[1]?.logs.join('\n')).to.match(/u3-old/);
  });

  it('a create never replaces a VM of ours whose uid this name never had', async () => {
    const other = await h.client.createVm({ name: 'real-4', uid: 'u4-first', waitForAddress: false });
    expect((await h.client.waitForJob(other.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    // The registry loses the name (another installation, or lost data), and a new uid asks for it.
    await h.redis.del(`${h.prefix}:desired:real-4`);
    const made = await h.client.createVm({ name: 'real-4', uid: 'u4-second', waitForAddress: false });
    const view = await h.client.waitForJob(made.jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('failed');
    expect(view.failedReason).to.match(/marked with another uid \(u4-first\)/);
    expect([...fake.vms.values()].filter((vm) => vm.config.name === 'real-4').map((vm) => vm.config.description)).to.have.length(1);
  });

  it('create then delete leaves no VM and no seed', async () => {
    const made = await h.client.createVm({ name: 'real-2', uid: 'u2', waitForAddress: false });
    expect((await h.client.waitForJob(made.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    expect(named('real-2')).to.equal(1);
    const gone = await h.client.deleteVm({ name: 'real-2' });
    const view = await h.client.waitForJob(gone.jobId, { timeoutMs: 10_000 });
    expect(view.state, view.failedReason).to.equal('completed');
    expect(view.result).to.deep.include({ deleted: true });
    expect(named('real-2')).to.equal(0);
    const seeds = [...fake.volumeMap.values()].flatMap((volumes) => [...volumes.keys()]).filter((volid) => volid.includes('real-2'));
    expect(seeds).to.deep.equal([]);
  });
});
