// The qemu behaviours of the seeds, over HTTP (SPEC 8): F2, F3, F4, F5,
// F7, F8, F9, F10, F11, F14, F15, F19, F20, F21, compared with the
// captures where one exists (the VMID of the captures is 199999).
import { expect } from 'chai';
import { guestAddress } from '../../src/sim/index.js';
import { captured, shape, startTestSim, type ResourceEntry, type TestSim } from './sim-helpers.js';

const Q = '/nodes/pv1-1/qemu';
const ID = 199999;
const MARK = 'managed-by: pve-provisioner\nuid: 3f1c2a9e\nwritten-at-create: 2026-09-19T10:04:12Z';

describe('simulator: qemu (F2-F21)', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.close();
  });

  const clone = (params: Record<string, string | number> = {}): Promise<string> =>
    sim.data<string>('POST', `${Q}/9001/clone`, { newid: ID, name: 'proxy-reconaaaaaaaaaaa', description: MARK, full: 1, ...params });
  const task = (upid: string, node = 'pv1-1'): Promise<{ status: string; exitstatus?: string; type: string; node: string }> =>
    sim.data('GET', `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
  const resource = async (vmid = ID): Promise<ResourceEntry | undefined> =>
    (await sim.data<ResourceEntry[]>('GET', '/cluster/resources', { type: 'vm' })).find((r) => r.vmid === vmid);
  const config = (vmid = ID): Promise<Record<string, string | number>> => sim.data('GET', `${Q}/${vmid}/config`);

  it('answers a missing VM with the captured F2 text for config, status and destroy', async () => {
    const expected = captured('err_config_missing');
    expect(shape(await sim.api('GET', `${Q}/999999/config`))).to.deep.equal(expected);
    expect(shape(await sim.api('GET', `${Q}/999999/status/current`))).to.deep.equal(expected);
    expect(shape(await sim.api('DELETE', `${Q}/999999`))).to.deep.equal(expected);
  });

  it('clones as a task: mid-clone the entry has lock clone, status unknown and no name (F8, F16)', async () => {
    const upid = await clone();
    expect(upid).to.match(/^UPID:pv1-1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:qmclone:9001:root@pam!provisioner:$/);
    expect(await resource()).to.deep.equal({ id: `qemu/${ID}`, type: 'qemu', vmid: ID, node: 'pv1-1', lock: 'clone', status: 'unknown' });
    // qemu-server's temporary file until the first disk is copied, then the new config, still locked (audit 12d).
    expect(await config()).to.deep.include({ lock: 'clone', description: 'qmclone temporary file' });
    expect((await config()).name).to.equal(undefined);
    sim.clock.advance(1);
    expect(await config()).to.include({ lock: 'clone', name: 'proxy-reconaaaaaaaaaaa' });
    expect(await task(upid)).to.include({ status: 'running', type: 'qmclone', node: 'pv1-1' });
    sim.clock.advance(1);
    expect(await task(upid)).to.include({ status: 'stopped', exitstatus: 'OK' });
    expect(await resource()).to.include({ name: 'proxy-reconaaaaaaaaaaa', status: 'stopped', tags: 'debian' });
    expect((await resource())?.lock).to.equal(undefined);
  });

  it('copies the template (tags, meta) with the description given verbatim and a new MAC (F10, F11)', async () => {
    await clone();
    sim.clock.advance(2);
    const [template, cloned] = [await config(9001), await config()];
    expect(cloned).to.include({ description: MARK, tags: 'debian', meta: template.meta, boot: 'order=scsi0', agent: '1' });
    expect(cloned.template).to.equal(undefined);
    expect(cloned.scsi0).to.equal(`local-lvm:vm-${ID}-disk-1,discard=on,iothread=1,size=3G`);
    expect(String(cloned.net0).slice(0, 10)).to.equal('virtio=BC:');
    expect(cloned.net0).not.to.equal(template.net0);
  });

  it('makes a linked clone of a template unless full=1 (SPEC 13)', async () => {
    await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'linked' });
    sim.clock.advance(2);
    expect((await config()).scsi0).to.equal(`local-lvm:base-9001-disk-1/vm-${ID}-disk-1,discard=on,iothread=1,size=3G`);
    const state = (await sim.control('GET', 'state')) as { vms: { vmid: number; origin: string }[] };
    expect(state.vms.find((vm) => vm.vmid === ID)?.origin).to.equal('linked');
  });

  it('answers a clone onto a taken VMID synchronously with the captured F4 500', async () => {
    await clone();
    expect(shape(await sim.api('POST', `${Q}/9001/clone`, { newid: ID, name: 'again', full: 1 }))).to.deep.equal(captured('err_config_exists'));
  });

  it('answers a clone onto a VMID held on another node with a UPID whose task fails at the rename (audit 2b, SPEC 23)', async () => {
    await sim.control('POST', 'vms', { node: 'pv1-2', vmid: ID, config: { name: 'elsewhere' } });
    const upid = await sim.data<string>('POST', `${Q}/9001/clone`, { newid: ID, name: 'again', full: 1 });
    expect(await task(upid)).to.include({
      status: 'stopped',
      type: 'qmclone',
      exitstatus: `close (rename) atomic file '/etc/pve/nodes/pv1-1/qemu-server/${ID}.conf' failed: File exists`,
    });
    const log = await sim.data<{ t: string }[]>('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(upid)}/log`);
    expect(log.map((l) => l.t)).to.deep.equal([`creating a clone of VM 9001 with ID ${ID}`, `TASK ERROR: close (rename) atomic file '/etc/pve/nodes/pv1-1/qemu-server/${ID}.conf' failed: File exists`]);
    const entries = (await sim.data<ResourceEntry[]>('GET', '/cluster/resources', { type: 'vm' })).filter((r) => r.vmid === ID);
    expect(entries).to.deep.equal([{ ...entries[0], node: 'pv1-2', name: 'elsewhere' }]);
    expect((await sim.api('GET', `${Q}/${ID}/config`)).status, 'nothing on pv1-1').to.equal(500);
  });

  it("checks a clone as clone_vm does before its fork: storage, source lock, linked+storage, AllocateSpace, target (audit 2)", async () => {
    const post = (params: Record<string, string | number>) => sim.api('POST', `${Q}/9001/clone`, { newid: ID, name: 'x', full: 1, ...params });
    const text = (a: { status: number; reason: string }) => [a.status, a.reason];
    expect(text(await post({ storage: 'nope' }))).to.deep.equal([500, "storage 'nope' does not exist"]);
    expect(text(await post({ full: 0, storage: 'local-lvm' }))).to.deep.equal([500, "parameter 'storage' not allowed for linked clones"]);
    expect(text(await post({ target: 'pv1-2' }))).to.deep.equal([500, "can't clone VM to node 'pv1-2' (VM uses local storage)"]);
    expect(text(await post({ target: 'pv1-2', storage: 'local-lvm' }))).to.deep.equal([500, "can't clone to non-shared storage 'local-lvm'"]);
    await sim.faults({ denyAllocateSpace: ['local-lvm'] });
    expect(text(await post({}))).to.deep.equal([403, 'Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)']);
    await sim.faults({});
    await sim.control('POST', 'vms', { node: 'pv1-1', vmid: 9001, lock: 'backup' });
    expect(text(await post({}))).to.deep.equal([500, 'VM is locked (backup)']);
    expect(await resource()).to.equal(undefined);
  });

  it('clones the shared template to another node with target: the task runs on {node}, the VM moves when it ends', async () => {
    const upid = await sim.data<string>('POST', `${Q}/9200/clone`, { newid: ID, name: 'moved', full: 1, target: 'pv1-2' });
    expect(upid.split(':')[1]).to.equal('pv1-1');
    expect(await resource()).to.include({ node: 'pv1-1', lock: 'clone' });
    sim.clock.advance(2);
    expect(await task(upid)).to.include({ exitstatus: 'OK' });
    expect(await resource()).to.include({ node: 'pv1-2', name: 'moved' });
    expect(String((await sim.data<Record<string, string>>('GET', `/nodes/pv1-2/qemu/${ID}/config`)).scsi0)).to.match(/^vm-shared:vm-199999-disk-1,/);
  });

  it('sets the description only when one is given (not empty, not 0)', async () => {
    await sim.data('POST', `${Q}/9001/clone`, { newid: ID, name: 'x', full: 1, description: '' });
    sim.clock.advance(2);
    expect((await config()).description).to.equal(undefined);
  });

  it('refuses a clone onto a storage without images up front and leaves no VM (F15)', async () => {
    const answer = await sim.api('POST', `${Q}/9001/clone`, { newid: ID, name: 'x', full: 1, storage: 'local' });
    expect(shape(answer)).to.deep.equal(captured('err_clone_storage_no_images'));
    expect(await resource()).to.equal(undefined);
  });

  it('refuses a config write while clone-locked with the captured F7 500', async () => {
    await clone();
    expect(shape(await sim.api('PUT', `${Q}/${ID}/config`, { cores: 4 }))).to.deep.equal(captured('err_vm_locked_clone'));
  });

  it('accepts a start under the clone lock and runs it after the clone (F3)', async () => {
    const cloneUpid = await clone();
    const startUpid = await sim.data<string>('POST', `${Q}/${ID}/status/start`);
    sim.clock.advance(2);
    expect(await task(cloneUpid)).to.include({ exitstatus: 'OK' });
    expect(await task(startUpid)).to.include({ status: 'running' });
    sim.clock.advance(1);
    expect(await task(startUpid)).to.include({ status: 'stopped', exitstatus: 'OK' });
    const log = await sim.data<{ n: number; t: string }[]>('GET', `/nodes/pv1-1/tasks/${encodeURIComponent(startUpid)}/log`);
    expect(log.map((l) => l.t)).to.deep.equal(['trying to acquire lock... OK', 'TASK OK']);
    expect(await sim.data('GET', `${Q}/${ID}/status/current`)).to.include({ status: 'running', qmpstatus: 'running' });
  });

  it('fails a start whose wait for the clone lock passes 10 s, with the lock timeout text', async () => {
    await sim.faults({ slowTasks: 10 });
    await clone();
    const startUpid = await sim.data<string>('POST', `${Q}/${ID}/status/start`);
    sim.clock.advance(10);
    expect(await task(startUpid)).to.include({ status: 'stopped', exitstatus: captured('err_lock_timeout').reason });
    expect(await sim.data('GET', `${Q}/${ID}/status/current`)).to.include({ status: 'stopped' });
  });

  it('folds tags to lowercase with ; between them, keeps hyphens, refuses ! (F9)', async () => {
    await clone();
    sim.clock.advance(2);
    expect(shape(await sim.api('PUT', `${Q}/${ID}/config`, { tags: 'debian,Proxy_Operator;proxy-op' }))).to.deep.equal(captured('put_config_response'));
    // get_unique_tags sorts (audit 3).
    expect((await config()).tags).to.equal('debian;proxy-op;proxy_operator');
    expect(shape(await sim.api('PUT', `${Q}/${ID}/config`, { tags: 'debian;bang!' }))).to.deep.equal(captured('err_tag_invalid'));
  });

  it('appends ide2 to the boot order when a seed is attached, with the ISO size (F19)', async () => {
    await sim.control('POST', 'vms', { node: 'pv1-1', vmid: ID, config: { boot: 'order=scsi0', scsi0: 'local-lvm:vm-199999-disk-1,size=3G' } });
    const upload = new FormData();
    upload.append('content', 'iso');
    upload.append('filename', new Blob([Buffer.alloc(45056, 1)]), 'proxy-reconaaaaaaaaaaa-seed.iso');
    await fetch(`${sim.url}/api2/json/nodes/pv1-1/storage/proxy-seeds/upload`, { method: 'POST', body: upload, headers: { Authorization: `PVEAPIToken=root@pam!provisioner=5f0c8a1e-sim-test-secret` } });
    sim.clock.advance(1);
    await sim.data('PUT', `${Q}/${ID}/config`, { ide2: 'proxy-seeds:iso/proxy-reconaaaaaaaaaaa-seed.iso,media=cdrom' });
    expect(await config()).to.include({ boot: 'order=scsi0;ide2', ide2: 'proxy-seeds:iso/proxy-reconaaaaaaaaaaa-seed.iso,media=cdrom,size=44K' });
  });

  it('resizes as a task: grows, the same size is an OK no-op, a shrink fails inside the task (F20)', async () => {
    await clone();
    sim.clock.advance(2);
    const grow = await sim.data<string>('PUT', `${Q}/${ID}/resize`, { disk: 'scsi0', size: '10G' });
    sim.clock.advance(1);
    expect(await task(grow)).to.include({ exitstatus: 'OK', type: 'resize' });
    expect((await config()).scsi0).to.equal(`local-lvm:vm-${ID}-disk-1,discard=on,iothread=1,size=10G`);
    const same = await sim.data<string>('PUT', `${Q}/${ID}/resize`, { disk: 'scsi0', size: '10G' });
    const shrink = await sim.data<string>('PUT', `${Q}/${ID}/resize`, { disk: 'scsi0', size: '4G' });
    sim.clock.advance(1);
    expect(await task(same)).to.include({ exitstatus: 'OK' });
    expect(await task(shrink)).to.include({ status: 'stopped', exitstatus: 'shrinking disks is not supported' });
    expect((await config()).scsi0).to.include('size=10G');
  });

  it('gives the three agent messages of F5 and an address some time after start (F21)', async () => {
    await clone();
    sim.clock.advance(2);
    expect(shape(await sim.api('GET', `${Q}/${ID}/agent/network-get-interfaces`))).to.deep.equal(captured('err_vm_not_running'));
    await sim.data('POST', `${Q}/${ID}/status/start`);
    sim.clock.advance(1);
    expect(shape(await sim.api('GET', `${Q}/${ID}/agent/network-get-interfaces`))).to.deep.equal(captured('err_agent_not_running'));
    sim.clock.advance(47);
    const { result } = await sim.data<{ result: { name: string; 'hardware-address': string; 'ip-addresses': { 'ip-address': string }[] }[] }>(
      'GET',
      `${Q}/${ID}/agent/network-get-interfaces`,
    );
    const net0Mac = /virtio=([0-9A-F:]+)/.exec(String((await config()).net0))?.[1]?.toLowerCase();
    expect(result.map((i) => i.name)).to.deep.equal(['lo', 'ens18']);
    expect(result[1]?.['hardware-address']).to.equal(net0Mac);
    expect(result[1]?.['ip-addresses'][0]?.['ip-address']).to.equal(guestAddress(ID)).and.match(/^10\./);
    await sim.data('PUT', `${Q}/${ID}/config`, { delete: 'agent' });
    expect(shape(await sim.api('GET', `${Q}/${ID}/agent/network-get-interfaces`))).to.deep.equal(captured('err_agent_not_configured'));
  });

  it('tells paused from running in status/current while resources say running (F14)', async () => {
    await sim.control('POST', 'vms', { node: 'pv1-1', vmid: ID, config: { name: 'p', agent: '1' }, status: 'running', paused: true });
    expect(await sim.data('GET', `${Q}/${ID}/status/current`)).to.include({ status: 'running', qmpstatus: 'paused' });
    expect(await resource()).to.include({ status: 'running' });
  });

  it('refuses to destroy a running VM with the captured 500, destroys a stopped one as a task', async () => {
    await clone();
    sim.clock.advance(2);
    await sim.data('POST', `${Q}/${ID}/status/start`);
    sim.clock.advance(1);
    expect(shape(await sim.api('DELETE', `${Q}/${ID}`, { purge: 1, 'destroy-unreferenced-disks': 1 }))).to.deep.equal(captured('err_destroy_running'));
    const stop = await sim.data<string>('POST', `${Q}/${ID}/status/stop`);
    sim.clock.advance(1);
    expect(await task(stop)).to.include({ exitstatus: 'OK', type: 'qmstop' });
    expect(await sim.data('GET', `${Q}/${ID}/status/current`)).to.include({ status: 'stopped', qmpstatus: 'stopped' });
    const destroy = await sim.data<string>('DELETE', `${Q}/${ID}`, { purge: 1, 'destroy-unreferenced-disks': 1 });
    expect(await resource()).to.include({ lock: 'destroyed' });
    sim.clock.advance(1);
    expect(await task(destroy)).to.include({ exitstatus: 'OK', type: 'qmdestroy' });
    expect(await resource()).to.equal(undefined);
    expect((await sim.api('DELETE', `${Q}/${ID}`)).reason).to.equal(`Configuration file 'nodes/pv1-1/qemu-server/${ID}.conf' does not exist`);
  });
});
