// The fake speaks the host's words (fixtures/) and behaves as the facts say.
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { apiErrorFromFixture, fixtureData } from '../support/fixtures.js';
import type { CloneParams, TaskStatus } from '../../src/proxmox/api.js';
import type { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { FAKE_ONLY_SAMPLES, FIXTURE_SAMPLES, SIMULATOR_SAMPLES, fakeErrors, fakeTaskExits } from './fake-errors.js';
import { FakeProxmox } from './fake-proxmox.js';
import { rejection } from '../support/rejection.js';

const HERE = dirname(fileURLToPath(import.meta.url));

async function runTask(pve: FakeProxmox, node: string, upid: string): Promise<TaskStatus> {
  for (let i = 0; i < 20; i++) {
    const s = await pve.taskStatus(node, upid);
    if (s.status === 'stopped') return s;
  }
  throw new Error('task never ended');
}

const source = (text: string) => ({ size: Buffer.byteLength(text), open: () => Readable.from([Buffer.from(text)]) });

describe('FakeProxmox', () => {
  describe('error texts', () => {
    for (const sample of FIXTURE_SAMPLES) {
      it(`reproduces ${sample.fixture} exactly`, () => {
        const fake = sample.make();
        const real = apiErrorFromFixture(sample.fixture);
        expect({ status: fake.status, message: fake.message, reason: fake.reason, errors: fake.errors }).to.deep.equal({
          status: real.status,
          message: real.message,
          reason: real.reason,
          errors: real.errors,
        });
      });
    }

    it('marks every text no host produced with fake:', () => {
      for (const make of FAKE_ONLY_SAMPLES) expect(make().message).to.match(/^fake: /);
    });

    it('covers every maker with a fixture, a simulator or a fake: sample', () => {
      expect(FIXTURE_SAMPLES.length + SIMULATOR_SAMPLES.length + FAKE_ONLY_SAMPLES.length).to.equal(Object.keys(fakeErrors).length);
    });

    it('makes errors only through fake-errors.ts', () => {
      for (const file of readdirSync(HERE).filter((f) => f.endsWith('.ts') && f !== 'fake-errors.ts' && !f.endsWith('.test.ts'))) {
        expect(readFileSync(join(HERE, file), 'utf8'), file).not.to.match(/new ProxmoxApiError|new Error\(`?fake/);
      }
    });

    it('fails a shrink with the exit text of the captured task (F20)', () => {
      expect(fakeTaskExits.shrink).to.equal(fixtureData<TaskStatus>('task_status_stopped_error').exitstatus);
    });
  });

  describe('behaviour', () => {
    it('a clone is nameless, locked and unknown until its task ends (F8), then carries name and mark', async () => {
      const pve = new FakeProxmox();
      const upid = await pve.clone('pv1-1', 9001, { newid: 123, name: 'a', description: 'mark', full: true });
      const during = (await pve.clusterResources('vm')).find((r) => r.vmid === 123);
      expect(during).to.deep.equal({ id: 'qemu/123', type: 'qemu', vmid: 123, node: 'pv1-1', lock: 'clone', status: 'unknown' });
      expect((await rejection(pve.putConfig('pv1-1', 123, { cores: 2 }))).message).to.equal('VM is locked (clone)');
      expect((await runTask(pve, 'pv1-1', upid)).exitstatus).to.equal('OK');
      const config = await pve.getConfig('pv1-1', 123);
      expect(config).to.include({ name: 'a', description: 'mark' });
      expect(config.template).to.equal(undefined);
      expect(config.net0).not.to.equal(fixtureData<{ net0: string }>('config_template_9001').net0);
    });

    it('refuses a clone onto a taken VMID (F4)', async () => {
      const pve = new FakeProxmox();
      pve.addVm({ vmid: 123, config: { name: 'x' } });
      const err = await rejection(pve.clone('pv1-1', 9001, { newid: 123, name: 'a', description: '', full: true }));
      expect(err.message).to.equal('unable to create VM 123: config file already exists');
    });

    it('a clone onto a VMID held on another node answers a UPID whose task fails at the rename (audit 2b)', async () => {
      const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }] });
      pve.addVm({ vmid: 123, node: 'b', config: { name: 'theirs' } });
      const upid = await pve.clone('a', 9001, { newid: 123, name: 'mine', description: 'mark', full: true });
      expect((await runTask(pve, 'a', upid)).exitstatus).to.equal("close (rename) atomic file '/etc/pve/nodes/a/qemu-server/123.conf' failed: File exists");
      expect(pve.vm(123)).to.include({ node: 'b' });
      expect(pve.vm(123)?.config).to.deep.equal({ name: 'theirs' });
      expect((await pve.clusterResources('vm')).filter((r) => r.vmid === 123)).to.have.length(1);
    });

    it("checks a clone's storage, the source's lock, linked clones and AllocateSpace before the fork (audit 2c)", async () => {
      const pve = new FakeProxmox();
      const clone = (extra: Partial<CloneParams>) => rejection(pve.clone('pv1-1', 9001, { newid: 123, name: 'a', description: '', full: true, ...extra }));
      expect(await clone({ storage: 'nope' })).to.include({ status: 500, message: "storage 'nope' does not exist" });
      expect(await clone({ full: false, storage: 'local-lvm' })).to.include({ status: 500, message: "parameter 'storage' not allowed for linked clones" });
      pve.denyAllocateSpace.add('local-lvm');
      expect(await clone({})).to.include({ status: 403, message: 'Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)' });
      pve.denyAllocateSpace.clear();
      pve.vm(9001)!.config.lock = 'backup';
      expect(await clone({})).to.include({ status: 500, message: 'VM is locked (backup)' });
      expect(pve.vm(123)).to.equal(undefined);
    });

    it('clones with target only from shared storage; the VM moves to the target when its task ends (audit 2)', async () => {
      const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }], sharedTemplate: true });
      expect(pve.vm(9200)).to.include({ node: 'a' });
      expect((await rejection(pve.clone('a', 9001, { newid: 123, name: 'x', description: '', full: true, target: 'b' }))).message).to.equal(
        "can't clone VM to node 'b' (VM uses local storage)",
      );
      const upid = await pve.clone('a', 9200, { newid: 123, name: 'x', description: '', full: true, target: 'b' });
      expect(upid.split(':')[1]).to.equal('a');
      expect(pve.vm(123)).to.include({ node: 'a' });
      await runTask(pve, 'a', upid);
      expect(pve.vm(123)).to.include({ node: 'b' });
      expect(String(pve.vm(123)?.config.scsi0)).to.match(/^vm-shared:/);
      expect((await pve.storages('b')).find((st) => st.storage === 'vm-shared')).to.include({ shared: 1 });
    });

    it('sets description only when it is not empty', async () => {
      const pve = new FakeProxmox();
      await runTask(pve, 'pv1-1', await pve.clone('pv1-1', 9001, { newid: 123, name: 'a', description: '', full: true }));
      expect(pve.vm(123)?.config.description).to.equal(undefined);
    });

    it("fails resize, start, stop and destroy's checks inside their tasks, as Proxmox does (audit 4b, 4c, 5)", async () => {
      const pve = new FakeProxmox();
      const exit = async (upid: Promise<string>) => (await runTask(pve, 'pv1-1', await upid)).exitstatus;
      pve.addVm({ vmid: 123, config: { name: 'a', scsi0: 'local-lvm:vm-123-disk-0,size=3G', lock: 'backup' } });
      expect(await exit(pve.resize('pv1-1', 123, 'scsi0', '10G'))).to.equal('VM is locked (backup)');
      // _do_vm_stop leaves a VM that is not running alone, lock or not.
      expect(await exit(pve.stop('pv1-1', 123))).to.equal('OK');
      pve.vm(123)!.status = 'running';
      expect(await exit(pve.stop('pv1-1', 123))).to.equal('VM is locked (backup)');
      pve.vm(123)!.status = 'stopped';
      expect(await exit(pve.start('pv1-1', 123))).to.equal('VM is locked (backup)');
      expect(await exit(pve.destroy('pv1-1', 123, { purge: true, destroyUnreferencedDisks: true }))).to.equal('VM is locked (backup)');
      delete pve.vm(123)!.config.lock;
      expect(await exit(pve.resize('pv1-1', 123, 'scsi9', '10G'))).to.equal("disk 'scsi9' does not exist");
      pve.denyAllocateSpace.add('local-lvm');
      expect(await exit(pve.resize('pv1-1', 123, 'scsi0', '10G'))).to.equal('403 Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)');
      expect(await exit(pve.start('pv1-1', 999))).to.equal("Configuration file 'nodes/pv1-1/qemu-server/999.conf' does not exist");
      expect(await exit(pve.stop('pv1-1', 999))).to.equal("unable to find configuration file for VM 999 on node 'pv1-1'");
      expect(await exit(pve.start('pv1-1', 9001))).to.equal("you can't start a vm if it's a template");
      expect(await exit(pve.start('pv1-1', 123))).to.equal('OK');
      expect(await exit(pve.start('pv1-1', 123))).to.equal('VM 123 already running');
    });

    it('with statdEvery, a finished clone stays nameless and unknown in resources until pvestatd runs (audit 7)', async () => {
      const pve = new FakeProxmox({ statdEvery: 1000 });
      await runTask(pve, 'pv1-1', await pve.clone('pv1-1', 9001, { newid: 123, name: 'a', description: 'mark', full: true }));
      const entry = async () => (await pve.clusterResources('vm')).find((r) => r.vmid === 123);
      expect(await entry()).to.deep.equal({ id: 'qemu/123', type: 'qemu', vmid: 123, node: 'pv1-1', status: 'unknown', tags: 'debian' });
      pve.statdCycle();
      expect(await entry()).to.include({ name: 'a', status: 'stopped', template: 0 });
    });

    it('accepts a start under a clone lock and runs it once the clone ends (F3)', async () => {
      const pve = new FakeProxmox();
      const clone = await pve.clone('pv1-1', 9001, { newid: 123, name: 'a', description: '', full: true });
      const start = await pve.start('pv1-1', 123);
      for (let i = 0; i < 5; i++) expect((await pve.taskStatus('pv1-1', start)).status).to.equal('running');
      await runTask(pve, 'pv1-1', clone);
      expect((await runTask(pve, 'pv1-1', start)).exitstatus).to.equal('OK');
      expect((await pve.statusCurrent('pv1-1', 123)).status).to.equal('running');
    });

    it('answers a task only on the node of its UPID, and runs uploads on the API node (SPEC 16)', async () => {
      const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }], apiNode: 'a' });
      const upid = await pve.upload('b', 'proxy-seeds', 'x-seed.iso', source('one'));
      expect(upid.split(':')[1]).to.equal('a');
      const wrongNode = (await rejection(pve.taskStatus('b', upid))) as ProxmoxApiError;
      expect({ status: wrongNode.status, errors: wrongNode.errors }).to.deep.equal({ status: 400, errors: { upid: 'no such task' } });
      await runTask(pve, 'a', upid);
      expect(pve.volumes('b', 'proxy-seeds').map((v) => v.volid)).to.deep.equal(['proxy-seeds:iso/x-seed.iso']);
    });

    it('overwrites an upload of the same name (F12) and refuses a name without .iso', async () => {
      const pve = new FakeProxmox();
      await runTask(pve, 'pv1-1', await pve.upload('pv1-1', 'proxy-seeds', 'x-seed.iso', source('one')));
      await runTask(pve, 'pv1-1', await pve.upload('pv1-1', 'proxy-seeds', 'x-seed.iso', source('second')));
      const vols = pve.volumes('pv1-1', 'proxy-seeds');
      expect(vols).to.have.length(1);
      expect(vols[0]?.bytes.toString()).to.equal('second');
      const err = await rejection(pve.upload('pv1-1', 'proxy-seeds', 'x-seed.img', source('x')));
      expect(err.message).to.equal('Parameter verification failed.');
    });

    it('deletes a missing volume with an OK task (F13), or refuses without the privilege', async () => {
      const pve = new FakeProxmox();
      const status = await runTask(pve, 'pv1-1', await pve.deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/gone-seed.iso'));
      expect(status.exitstatus).to.equal('OK');
      pve.deleteForbidden.add('proxy-seeds');
      const err = await rejection(pve.deleteVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/gone-seed.iso'));
      expect(err.message).to.equal('Permission check failed (/storage/proxy-seeds, Datastore.Allocate)');
    });

    it('folds tags to lowercase and refuses invalid ones (F9); ide2 joins the boot order (F19)', async () => {
      const pve = new FakeProxmox();
      pve.addVm({ vmid: 123, config: { name: 'a', boot: 'order=scsi0', scsi0: 'local-lvm:vm-123-disk-1,size=3G' } });
      pve.addVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/a-seed.iso');
      await pve.putConfig('pv1-1', 123, { tags: 'Pve_Provisioner;Debian;debian', ide2: 'proxy-seeds:iso/a-seed.iso,media=cdrom' });
      const config = await pve.getConfig('pv1-1', 123);
      expect(config.tags, 'get_unique_tags: lowercase, sorted, once').to.equal('debian;pve_provisioner');
      expect(config.boot).to.equal('order=scsi0;ide2');
      const err = (await rejection(pve.putConfig('pv1-1', 123, { tags: 'bad tag!' }))) as Error & { errors?: Record<string, string> };
      expect(err.errors).to.deep.equal({ tags: 'invalid format - invalid characters in tag' });
    });

    it('appends only CD-ROMs to the boot order and refuses an ISO without media=cdrom or one that is not there (audit 3)', async () => {
      const pve = new FakeProxmox();
      pve.addVm({ vmid: 123, config: { name: 'a', boot: 'order=scsi0', scsi0: 'local-lvm:vm-123-disk-1,size=3G' } });
      pve.addVolume('pv1-1', 'proxy-seeds', 'proxy-seeds:iso/a.iso');
      await pve.putConfig('pv1-1', 123, { scsi1: 'local-lvm:vm-123-disk-2,size=1G' });
      expect((await pve.getConfig('pv1-1', 123)).boot).to.equal('order=scsi0');
      expect(((await rejection(pve.putConfig('pv1-1', 123, { ide2: 'proxy-seeds:iso/a.iso' }))) as ProxmoxApiError).errors).to.deep.equal({
        ide2: "explicit 'media=cdrom' is required for iso images",
      });
      expect((await rejection(pve.putConfig('pv1-1', 123, { ide2: 'proxy-seeds:iso/none.iso,media=cdrom' }))).message).to.equal('volume proxy-seeds:iso/none.iso does not exist');
    });

    it('grows a disk as a task and fails a shrink inside the task (F20)', async () => {
      const pve = new FakeProxmox();
      pve.addVm({ vmid: 123, config: { name: 'a', scsi0: 'local-lvm:vm-123-disk-1,size=3G' } });
      expect((await runTask(pve, 'pv1-1', await pve.resize('pv1-1', 123, 'scsi0', '10G'))).exitstatus).to.equal('OK');
      expect(pve.vm(123)?.config.scsi0).to.equal('local-lvm:vm-123-disk-1,size=10G');
      expect((await runTask(pve, 'pv1-1', await pve.resize('pv1-1', 123, 'scsi0', '4G'))).exitstatus).to.equal('shrinking disks is not supported');
    });

    it('refuses to destroy a running VM; paused shows running in resources (F14)', async () => {
      const pve = new FakeProxmox();
      pve.addVm({ vmid: 123, config: { name: 'a' }, status: 'running', qmpstatus: 'paused' });
      expect((await pve.clusterResources('vm')).find((r) => r.vmid === 123)?.status).to.equal('running');
      expect((await pve.statusCurrent('pv1-1', 123)).qmpstatus).to.equal('paused');
      expect((await rejection(pve.destroy('pv1-1', 123, { purge: true, destroyUnreferencedDisks: true }))).message).to.equal(
        'VM 123 is running - destroy failed',
      );
    });

    it('hooks run before a call, can fail it, and calls are recorded', async () => {
      const pve = new FakeProxmox();
      pve.failNext('version', fakeErrors.authFailed());
      expect((await rejection(pve.version())).message).to.equal('Authentication failed!');
      expect((await pve.version()).release).to.equal('9.2');
      expect(pve.count('version')).to.equal(2);
    });

    it('rejects a call whose signal is aborted', async () => {
      const pve = new FakeProxmox();
      const ac = new AbortController();
      ac.abort(new Error('stop'));
      expect((await rejection(pve.version({ signal: ac.signal }))).message).to.equal('stop');
    });
  });
});
