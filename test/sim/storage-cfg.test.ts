// Storages disabled or restricted to some nodes (SPEC 28, audit 6.2):
// pve-storage Storage.pm storage_check_enabled's texts where Proxmox
// raises them, the storage listing and /cluster/resources as Status.pm
// index and Cluster.pm resources show them, and /_sim/storages.
import { expect } from 'chai';
import { startTestSim, type Answer, type TestSim } from './sim-helpers.js';

async function upload(sim: TestSim, node: string, storage: string): Promise<Answer> {
  const form = new FormData();
  form.append('content', 'iso');
  form.append('filename', new Blob([Buffer.alloc(2048, 1)]), 'proxy-reconaaaaaaaaaaa-seed.iso');
  const response = await fetch(`${sim.url}/api2/json/nodes/${node}/storage/${storage}/upload`, {
    method: 'POST',
    body: form,
    headers: { Authorization: 'PVEAPIToken=root@pam!provisioner=5f0c8a1e-sim-test-secret' },
  });
  return { status: response.status, reason: response.statusText, body: await response.text(), contentType: null };
}

const CLONE = '/nodes/pv1-1/qemu/9001/clone';
const cloneParams = (extra: Record<string, string | number> = {}) => ({ newid: 199999, name: 'proxy-reconaaaaaaaaaaa', full: 1, ...extra });
const said = (a: Answer): [number, string] => [a.status, a.reason];

interface Listed {
  storage: string;
  enabled: number;
  active: number;
  total?: number;
}

describe('simulator: storages disabled or not available on a node (SPEC 28, audit 6.2)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim({ vms: 0 });
  });
  afterEach(async () => {
    await sim.close();
  });

  const setStorage = (body: Record<string, unknown>) => sim.control('POST', 'storages', body);

  async function taskExit(upid: string): Promise<string | undefined> {
    const node = upid.split(':')[1] ?? '';
    for (let i = 0; i < 10; i++) {
      sim.clock.advance(1);
      const status = await sim.data<{ status: string; exitstatus?: string }>('GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
      if (status.status === 'stopped') return status.exitstatus;
    }
    return undefined;
  }

  it('refuses a clone onto a disabled storage, or one not available on the node, before the task (Qemu.pm clone_vm)', async () => {
    await setStorage({ storage: 'local-lvm', disable: true });
    expect(said(await sim.api('POST', CLONE, cloneParams({ storage: 'local-lvm' })))).to.deep.equal([500, "storage 'local-lvm' is disabled"]);
    // Disabled is checked before the node (storage_check_enabled, then storage_check_node).
    await setStorage({ storage: 'local-lvm', nodes: ['pv1-2'] });
    expect(said(await sim.api('POST', CLONE, cloneParams({ storage: 'local-lvm' })))).to.deep.equal([500, "storage 'local-lvm' is disabled"]);
    await setStorage({ storage: 'local-lvm', disable: false });
    expect(said(await sim.api('POST', CLONE, cloneParams({ storage: 'local-lvm' })))).to.deep.equal([500, "storage 'local-lvm' is not available on node 'pv1-1'"]);
    // A storage that does not exist keeps its own text, and a cross-node clone checks the target too.
    expect(said(await sim.api('POST', CLONE, cloneParams({ storage: 'nope' })))).to.deep.equal([500, "storage 'nope' does not exist"]);
    await setStorage({ storage: 'vm-shared', nodes: ['pv1-1'] });
    const cross = await sim.api('POST', '/nodes/pv1-1/qemu/9200/clone', cloneParams({ storage: 'vm-shared', target: 'pv1-2' }));
    expect(said(cross)).to.deep.equal([500, "storage 'vm-shared' is not available on node 'pv1-2'"]);
    const state = (await sim.control('GET', 'state')) as { vms: { vmid: number }[] };
    expect(state.vms.map((vm) => vm.vmid)).not.to.include(199999);
  });

  it("fails the clone's task when the template's own disk storage is disabled (clone_disk in the worker)", async () => {
    await setStorage({ storage: 'local-lvm', disable: true });
    const answer = await sim.api('POST', CLONE, cloneParams());
    expect(answer.status).to.equal(200);
    const upid = (JSON.parse(answer.body) as { data: string }).data;
    expect(await taskExit(upid)).to.equal("clone failed: storage 'local-lvm' is disabled");
    // activate_volumes runs on the source's own disks, whatever storage the copy goes to.
    const elsewhere = await sim.api('POST', CLONE, cloneParams({ newid: 199998, storage: 'vm-shared' }));
    expect(elsewhere.status).to.equal(200);
    expect(await taskExit((JSON.parse(elsewhere.body) as { data: string }).data)).to.equal("clone failed: storage 'local-lvm' is disabled");
    const state = (await sim.control('GET', 'state')) as { vms: { vmid: number }[] };
    expect(state.vms.map((vm) => vm.vmid)).not.to.include.members([199999]);
    expect(state.vms.map((vm) => vm.vmid)).not.to.include(199998);
  });

  it('refuses an upload and a content listing at once, and fails a volume delete in its task (Status.pm, Content.pm)', async () => {
    await setStorage({ storage: 'proxy-seeds', nodes: ['pv1-1'] });
    expect(said(await upload(sim, 'pv1-2', 'proxy-seeds'))).to.deep.equal([500, "storage 'proxy-seeds' is not available on node 'pv1-2'"]);
    expect((await upload(sim, 'pv1-1', 'proxy-seeds')).status).to.equal(200);
    await setStorage({ storage: 'proxy-seeds', disable: true });
    expect(said(await upload(sim, 'pv1-1', 'proxy-seeds'))).to.deep.equal([500, "storage 'proxy-seeds' is disabled"]);
    const listing = await sim.api('GET', '/nodes/pv1-1/storage/proxy-seeds/content', { content: 'iso' });
    expect(said(listing)).to.deep.equal([500, "storage 'proxy-seeds' is disabled"]);
    const deleted = await sim.api('DELETE', `/nodes/pv1-1/storage/proxy-seeds/content/${encodeURIComponent('proxy-seeds:iso/x.iso')}`);
    expect(deleted.status).to.equal(200);
    expect(await taskExit((JSON.parse(deleted.body) as { data: string }).data)).to.equal("storage 'proxy-seeds' is disabled");
  });

  it('lists a refused storage with enabled and active 0, and leaves it out of content filters and /cluster/resources (storage_info, Cluster.pm)', async () => {
    await setStorage({ storage: 'proxy-seeds', disable: true });
    await setStorage({ storage: 'local-lvm', nodes: ['pv1-2'] });
    const listed = await sim.data<Listed[]>('GET', '/nodes/pv1-1/storage');
    const view = Object.fromEntries(listed.map((s) => [s.storage, [s.enabled, s.active, s.total]]));
    expect(view).to.deep.equal({
      local: [1, 1, 100_861_726_720],
      'local-lvm': [0, 0, 0],
      'proxy-seeds': [0, 0, 0],
      'vm-shared': [1, 1, 100_861_726_720],
    });
    const onOther = await sim.data<Listed[]>('GET', '/nodes/pv1-2/storage');
    expect(onOther.find((s) => s.storage === 'local-lvm')).to.include({ enabled: 1, active: 1 });
    expect((await sim.data<Listed[]>('GET', '/nodes/pv1-1/storage', { content: 'iso' })).map((s) => s.storage)).to.deep.equal(['local']);
    // `enabled=1` leaves out only what storage.cfg disables, not what its nodes restrict.
    expect((await sim.data<Listed[]>('GET', '/nodes/pv1-1/storage', { enabled: 1 })).map((s) => s.storage)).to.deep.equal(['local', 'local-lvm', 'vm-shared']);
    const resources = await sim.data<{ id: string }[]>('GET', '/cluster/resources', { type: 'storage' });
    expect(resources.map((r) => r.id).sort()).to.deep.equal([
      'storage/pv1-1/local',
      'storage/pv1-1/vm-shared',
      'storage/pv1-2/local',
      'storage/pv1-2/local-lvm',
      'storage/pv1-2/vm-shared',
    ]);
  });

  it('/_sim/storages shows and changes storage.cfg, refuses a bad body naming the field, and a reset clears it', async () => {
    const changed = (await setStorage({ storage: 'local-lvm', disable: true, nodes: ['pv1-2'] })) as { storages: Record<string, unknown>[] };
    expect(changed.storages.find((s) => s.storage === 'local-lvm')).to.include({ disable: true }).and.deep.include({ nodes: ['pv1-2'] });
    const cleared = (await setStorage({ storage: 'local-lvm', disable: false, nodes: null })) as { storages: Record<string, unknown>[] };
    expect(cleared.storages.find((s) => s.storage === 'local-lvm')).to.deep.equal({ storage: 'local-lvm', type: 'lvmthin', content: 'rootdir,images', shared: false, disable: false });
    const bad = (await setStorage({ storage: 'nope', disable: 'yes', nodes: ['pv9'] })) as { problems: string[] };
    expect(bad.problems.map((p) => p.split(':')[0])).to.deep.equal(['storage', 'disable', 'nodes']);
    await setStorage({ storage: 'proxy-seeds', disable: true });
    await sim.control('POST', 'reset');
    const after = (await sim.control('GET', 'storages')) as { storages: { disable: boolean }[] };
    expect(after.storages.every((s) => !s.disable)).to.equal(true);
  });
});
