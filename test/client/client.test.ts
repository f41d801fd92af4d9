// The producer library (SPEC 6) against the real Redis: validation with
// the jobs' schemas (SPEC 1) and the idempotence and conflicts of SPEC 2.
import { expect } from 'chai';
import { IN_PLACE_FIELDS, SPEC_FIELDS, createInputFields } from '../../src/job-table/create.schema.js';
import { ConflictError, SpecConflictError, ValidationError, createProvisionerClient } from '../../src/client.js';
import { RedisUnavailableError } from '../../src/queue/connection.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createHarness } from '../support/harness.js';
import { fixtureKey } from '../support/ssh-keys.js';
import type { Harness } from '../support/harness.js';

/** Two images the simulator's population serves on pve1 and pve2: each node's debian template, and 9200 on shared storage. */
const TWO_IMAGES = [
  { name: 'debian', templates: { pve1: 9001, pve2: 9002 } },
  { name: 'shared', templates: { pve1: 9200, pve2: { vmid: 9200, node: 'pve1' } } },
];

describe('producer library (SPEC 6)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('the same create twice with the same uid gives one job and one VM', async () => {
    h = createHarness('idem');
    const a = await h.client.createVm({ name: 'app-1', uid: 'owner-1', cores: 2 });
    const b = await h.client.createVm({ name: 'app-1', uid: 'owner-1', cores: 2 });
    expect(b).to.deep.equal({ ...a, existing: true });
    expect(a.existing).to.equal(false);
    expect(await h.queues.vm.getJobCounts('waiting')).to.deep.equal({ waiting: 1 });
    await h.startWorker();
    expect((await h.client.waitForJob(a.jobId, { timeoutMs: 10_000 })).state).to.equal('completed');
    // Asked again after it is made: still that job, still one VM.
    const c = await h.client.createVm({ name: 'app-1', uid: 'owner-1', cores: 2 });
    expect(c.jobId).to.equal(a.jobId);
    expect(await h.provider.vmidsIssued()).to.equal(1);
    expect((await h.provider.calls()).filter((call) => call.op === 'create')).to.have.length(1);
  });

  it('a create of a present name with another uid is a ConflictError and enqueues nothing', async () => {
    h = createHarness('conflict');
    await h.client.createVm({ name: 'app-2', uid: 'owner-1' });
    const err = await h.client.createVm({ name: 'app-2', uid: 'owner-2' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ConflictError);
    expect(err).to.include({ vmName: 'app-2', existingUid: 'owner-1' });
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active')).to.equal(1);
    expect((await h.client.getVm('app-2'))?.uid).to.equal('owner-1');
  });

  it('a create that changes any one spec field a VM cannot take in place, or shrinks its disk, is a SpecConflictError naming exactly that field (SPEC 2)', async () => {
    h = createHarness('spec-fields', { config: { proxmox: { images: TWO_IMAGES } } });
    // Every field of the create's table is either compared or named here as not what the VM is.
    // The lease's terms (SPEC 31) are recorded on the name and move its lease: never a conflict (test/queue/leases.test.ts).
    // `pool` (SPEC 30) says where the VM may come from, not what it is.
    // `cluster` (SPEC 32) is compared only with several clusters, where the accept records it (test/queue/cluster-placement.test.ts).
    const notSpec = ['name', 'uid', 'waitForAddress', 'ttlSeconds', 'onExpiry', 'pool', 'cluster'];
    expect([...SPEC_FIELDS, ...notSpec].sort()).to.deep.equal(Object.keys(createInputFields).sort());
    const [nodeA = '', nodeB = ''] = h.config.proxmox.nodes.map((n) => n.name);
    const base = { cores: 2, memoryMiB: 2048, diskGiB: 10, userData: '#cloud-config\n', networkConfig: 'version: 2\n', sshKeys: [fixtureKey('ed25519.pub')], vlanTag: 10, bridge: 'vmbr0', node: nodeA, image: 'debian' };
    const changed: Record<(typeof SPEC_FIELDS)[number], unknown> = {
      node: nodeB,
      image: 'shared',
      cores: 3,
      memoryMiB: 4096,
      diskGiB: 5,
      userData: '#cloud-config\npackages: [htop]\n',
      networkConfig: 'version: 2\nethernets: {}\n',
      sshKeys: [fixtureKey('ed25519.pub'), fixtureKey('rsa-2048.pub')],
      vlanTag: 11,
      bridge: 'vmbr1',
    };
    expect(nodeB, 'the test config has two nodes').not.to.equal('');
    const anyValueInPlace = (field: string): boolean => (IN_PLACE_FIELDS as Record<string, string>)[field] === 'any';
    for (const field of SPEC_FIELDS.filter((f) => !anyValueInPlace(f))) {
      const name = `spec-${field.toLowerCase()}`;
      await h.client.createVm({ name, ...base });
      for (const uid of [undefined, 'another-uid']) {
        const err = await h.client.createVm({ name, ...base, [field]: changed[field], ...(uid ? { uid } : {}) }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, `${field}, uid ${String(uid)}`).to.be.instanceOf(SpecConflictError);
        expect((err as SpecConflictError).fields, `${field}, uid ${String(uid)}`).to.deep.equal([field]);
      }
      // Left out, an optional field differs from a present value too.
      if (createInputFields[field].presence === 'optional') {
        const { [field]: _left, ...without } = base;
        const err = await h.client.createVm({ name, ...without }).catch((e: unknown) => e);
        expect((err as SpecConflictError).fields, `${field} left out`).to.deep.equal([field]);
      }
      expect((await h.client.createVm({ name, ...base })).existing, `${field}: the same spec again`).to.equal(true);
    }
  });

  it('a create that changes only cores, memory or grows the disk of a present name is a new generation of that uid with the new spec, not a conflict (SPEC 2)', async () => {
    h = createHarness('in-place', { config: { proxmox: { images: TWO_IMAGES, defaultImage: 'debian' } } });
    const base = { name: 'grow-1', cores: 2, memoryMiB: 2048, diskGiB: 10 };
    const first = await h.client.createVm(base);
    const cores = await h.client.createVm({ ...base, cores: 4 });
    expect(cores).to.deep.equal({ jobId: 'create-grow-1-2', name: 'grow-1', generation: 2, uid: first.uid, existing: false, origin: 'cold', changes: ['cores'] });
    const job = await h.queues.vm.getJob(cores.jobId);
    expect(job?.data).to.include({ name: 'grow-1', uid: first.uid, cores: 4, generation: 2 });
    expect((await h.client.getVm('grow-1'))?.spec).to.include({ uid: first.uid, cores: 4, memoryMiB: 2048, diskGiB: 10 });

    // The same change again: the update's job, no new one.
    const { changes: _changes, ...accepted } = cores;
    expect(await h.client.createVm({ ...base, cores: 4 })).to.deep.equal({ ...accepted, existing: true });
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active')).to.equal(2);

    const both = await h.client.createVm({ ...base, cores: 1, memoryMiB: 1024, diskGiB: 20, uid: first.uid });
    expect(both).to.include({ generation: 3, existing: false }).and.to.have.property('changes').that.deep.equals(['cores', 'memoryMiB', 'diskGiB']);

    const shrink = await h.client.createVm({ ...base, cores: 1, memoryMiB: 1024, diskGiB: 15 }).catch((e: unknown) => e);
    expect(shrink).to.be.instanceOf(SpecConflictError);
    expect((shrink as SpecConflictError).fields).to.deep.equal(['diskGiB']);
    // Only the fields that cannot change in place are named; nothing is recorded.
    const image = await h.client.createVm({ ...base, cores: 8, diskGiB: 20, image: 'shared' }).catch((e: unknown) => e);
    expect((image as SpecConflictError).fields).to.deep.equal(['image']);
    expect((await h.client.getVm('grow-1'))?.spec).to.include({ cores: 1, memoryMiB: 1024, diskGiB: 20 });
    expect((await h.client.getVm('grow-1'))?.generation).to.equal(3);
  });

  it('compares sshKeys item by item, in order; an empty list is the same as none (SPEC 2, 27)', async () => {
    h = createHarness('spec-ssh-keys');
    const [a, b] = [fixtureKey('ed25519.pub'), fixtureKey('ecdsa-256.pub')];
    await h.client.createVm({ name: 'keys-1', sshKeys: [a, b] });
    expect((await h.client.createVm({ name: 'keys-1', sshKeys: [a, b] })).existing).to.equal(true);
    const swapped = await h.client.createVm({ name: 'keys-1', sshKeys: [b, a] }).catch((e: unknown) => e);
    expect((swapped as SpecConflictError).fields).to.deep.equal(['sshKeys']);
    await h.client.createVm({ name: 'keys-2' });
    expect((await h.client.createVm({ name: 'keys-2', sshKeys: [] })).existing).to.equal(true);
  });

  it('a spec recorded before images (no image) means the default image: the same create is no conflict, another image is (SPEC 2, 27)', async () => {
    h = createHarness('spec-old-image', { config: { proxmox: { images: TWO_IMAGES, defaultImage: 'debian' } } });
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const old = { name: 'old-1', uid: 'owner-1', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true };
    expect((await registry.recordPresent('old-1', 'owner-1', old)).kind).to.equal('recorded');
    expect((await h.client.createVm({ name: 'old-1' })).existing, 'no image: the default').to.equal(true);
    expect((await h.client.createVm({ name: 'old-1', image: 'debian' })).existing, 'the default named').to.equal(true);
    const other = await h.client.createVm({ name: 'old-1', image: 'shared' }).catch((e: unknown) => e);
    expect(other).to.be.instanceOf(SpecConflictError);
    expect((other as SpecConflictError).fields).to.deep.equal(['image']);
  });

  it('fills the default image into a create that names none, and refuses an unknown image naming image (SPEC 27)', async () => {
    h = createHarness('image-default', { config: { proxmox: { images: TWO_IMAGES, defaultImage: 'shared' } } });
    const made = await h.client.createVm({ name: 'img-1' });
    expect((await h.queues.vm.getJob(made.jobId))?.data).to.include({ image: 'shared' });
    const err = await h.client.createVm({ name: 'img-2', image: 'windows' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ValidationError);
    expect((err as ValidationError).fields.map((f) => f.field)).to.deep.equal(['image']);
    expect(await h.client.getVm('img-2')).to.equal(undefined);
  });

  it('refuses bad input with every failing field, enqueuing and recording nothing', async () => {
    h = createHarness('invalid');
    const err = await h.client.createVm({ name: 'Web_1', cores: 0, memoryMiB: 1.5, vlanTag: 5000, color: 'red', userData: 'x'.repeat(65 * 1024) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ValidationError);
    const fields = (err as ValidationError).fields.map((f) => f.field).sort();
    expect(fields).to.deep.equal(['color', 'cores', 'memoryMiB', 'name', 'userData', 'vlanTag']);
    expect((err as Error).message).to.include('vlanTag must be from 1 to 4094, got 5000');
    expect(await h.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed')).to.equal(0);
    expect((await h.client.listVms()).vms).to.deep.equal([]);
  });

  it('re-adds the job of an intent recorded but never added (a crash between the two, SPEC 2)', async () => {
    h = createHarness('heal');
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const spec = { name: 'app-3', uid: 'owner-1', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true };
    const recorded = await registry.recordPresent('app-3', 'owner-1', spec);
    expect(recorded.kind).to.equal('recorded');
    const again = await h.client.createVm({ name: 'app-3', uid: 'owner-1' });
    expect(again).to.include({ existing: true, generation: 1 });
    const job = await h.queues.vm.getJob(again.jobId);
    expect(job?.data).to.include({ name: 'app-3', uid: 'owner-1', generation: 1 });
  });

  it('retries a failed create when the same request comes again', async () => {
    h = createHarness('refail', { config: { jobs: { attempts: 1 } }, provider: { createFailures: [new Error('socket hang up')] } });
    const first = await h.client.createVm({ name: 'app-4', uid: 'owner-1' });
    await h.startWorker();
    expect((await h.client.waitForJob(first.jobId, { timeoutMs: 10_000 })).state).to.equal('failed');
    const again = await h.client.createVm({ name: 'app-4', uid: 'owner-1' });
    expect(again.jobId).to.equal(first.jobId);
    const view = await h.client.waitForJob(again.jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
  });

  it('fails fast with RedisUnavailableError when Redis is down, instead of queueing the request', async () => {
    h = createHarness('down');
    const down = createProvisionerClient({ redisUrl: 'redis://127.0.0.1:1', prefix: h.prefix, config: h.config });
    try {
      const err = await down.createVm({ name: 'app-6' }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(RedisUnavailableError);
    } finally {
      await down.close();
    }
  });

  it('enqueueJob takes a job of one name from the job table, and refuses a create or delete, which record desired state (SPEC 1, 2)', async () => {
    h = createHarness('enqueue-job');
    const { jobId, existing } = await h.client.enqueueJob('check', { name: 'app-7' });
    expect(existing).to.equal(false);
    expect(await h.client.getJob(jobId)).to.include({ job: 'check', state: 'waiting' });
    const refused = await h.client.enqueueJob('create' as 'check', { name: 'app-8' }).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(ValidationError);
    expect((refused as ValidationError).fields).to.deep.equal([{ field: 'job', message: 'must be one of check' }]);
    expect(await h.client.getVm('app-8')).to.equal(undefined);
    expect(await h.queues.vm.count()).to.equal(1);
  });

  it('waitForJob returns the current view when the job does not finish in time', async () => {
    h = createHarness('wait');
    const { jobId } = await h.client.checkVm({ name: 'app-5' });
    const view = await h.client.waitForJob(jobId, { timeoutMs: 150 });
    expect(view).to.include({ id: jobId, job: 'check', state: 'waiting' });
  });
});
