// SPEC 2: the newest intent for a name wins, whatever order its jobs run
// in; older generations end as superseded without touching Proxmox.
import { expect } from 'chai';
import { IN_PLACE_FIELDS, SPEC_FIELDS } from '../../src/job-table/create.schema.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { registryReader } from '../../src/reconciler/registry-adapter.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

describe('desired state and generations (SPEC 2)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  for (const order of ['as enqueued', 'newest first'] as const) {
    it(`create, delete, create of one name leaves it present (jobs run ${order})`, async () => {
      h = createHarness('order');
      const first = await h.client.createVm({ name: 'web-1', uid: 'u1' });
      const del = await h.client.deleteVm({ name: 'web-1' });
      const second = await h.client.createVm({ name: 'web-1', uid: 'u1' });
      expect([first.generation, del.generation, second.generation]).to.deep.equal([1, 2, 3]);
      if (order === 'newest first') {
        // Take the older jobs out, let the newest run to its end, then put
        // them back: they run after it whatever the machine's load (no timer decides the order).
        const older: { id: string; name: string; data: unknown }[] = [];
        for (const id of [first.jobId, del.jobId]) {
          const job = await h.queues.vm.getJob(id);
          if (!job) throw new Error(`job ${id} is missing`);
          older.push({ id, name: job.name, data: job.data });
          await job.remove();
        }
        await h.startWorker();
        expect((await h.client.waitForJob(second.jobId, { timeoutMs: 20_000 })).state).to.equal('completed');
        for (const job of older) await h.queues.vm.add(job.name, job.data, { jobId: job.id });
      } else {
        await h.startWorker();
      }
      const views = await Promise.all([first, del, second].map((r) => h.client.waitForJob(r.jobId, { timeoutMs: 20_000 })));
      expect(views.map((v) => v.state)).to.deep.equal(['completed', 'completed', 'completed']);
      expect(views[0]?.result).to.deep.include({ superseded: true, generation: 1, currentGeneration: 3 });
      expect(views[1]?.result).to.deep.include({ superseded: true, generation: 2, currentGeneration: 3 });
      expect(views[2]?.result).to.deep.include({ uid: 'u1', state: 'Running' });
      expect(await h.provider.vm('web-1')).to.include({ uid: 'u1' });
      const calls = await h.provider.calls();
      expect(calls.map((c) => c.op)).to.deep.equal(['create'], 'superseded jobs never reach the provider');
      expect((await h.client.getVm('web-1'))?.state).to.equal('present');
    });
  }

  it('create then delete leaves the name absent, with a tombstone carrying the generation', async () => {
    h = createHarness('absent');
    await h.client.createVm({ name: 'db-1', uid: 'u1' });
    const del = await h.client.deleteVm({ name: 'db-1' });
    await h.startWorker();
    const view = await h.client.waitForJob(del.jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
    expect(await h.provider.vm('db-1')).to.equal(undefined);
    const desired = await h.client.getVm('db-1');
    expect(desired).to.include({ state: 'absent', generation: 2 });
    expect(await h.redis.ttl(`${h.prefix}:desired:db-1`)).to.be.within(1, h.config.registry.tombstoneSeconds);
  });

  it('an in-place change is marked changing until a job of it runs; one recorded with no job stays marked for the reconciler (SPEC 2, 5)', async () => {
    h = createHarness('changing');
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const base = { name: 'web-2', uid: 'u1', cores: 2, memoryMiB: 2048, diskGiB: 10 };
    await h.startWorker();
    const first = await h.client.createVm(base);
    expect((await h.client.waitForJob(first.jobId, { timeoutMs: 20_000 })).state).to.equal('completed');
    expect((await registry.get('web-2'))?.changing).to.equal(undefined, 'a first create is no in-place change');

    const update = await h.client.createVm({ ...base, cores: 4 });
    expect(update.changes).to.deep.equal(['cores']);
    expect((await h.client.waitForJob(update.jobId, { timeoutMs: 20_000 })).state).to.equal('completed');
    expect((await registry.get('web-2'))?.changing).to.equal(undefined, 'cleared by the create of its generation');

    // A crash between recording and adding: the client's record, and no job.
    const recorded = (await registry.get('web-2'))?.spec ?? {};
    const lost = await registry.recordPresent('web-2', 'u1', { ...recorded, cores: 8 }, { compare: SPEC_FIELDS, inPlace: IN_PLACE_FIELDS });
    expect(lost).to.include({ kind: 'updated', generation: 3 });
    expect((await registry.get('web-2'))?.changing).to.equal(3);
    expect(await registryReader(registry, h.redis, h.prefix).get('web-2'), 'what the sweep reads').to.include({ generation: 3, changing: 3 });
    // The same request again re-adds the recorded job, which runs and clears the mark.
    const again = await h.client.createVm({ ...base, cores: 8 });
    expect(again).to.include({ generation: 3, existing: true });
    expect((await h.client.waitForJob(again.jobId, { timeoutMs: 20_000 })).state).to.equal('completed');
    expect((await registry.get('web-2'))?.changing).to.equal(undefined, 'cleared by the re-added job');
    await registry.recordPresent('web-2', 'u1', { ...recorded, cores: 16 }, { compare: SPEC_FIELDS, inPlace: IN_PLACE_FIELDS });
    expect((await registry.get('web-2'))?.changing).to.equal(4);
    await h.client.deleteVm({ name: 'web-2' });
    expect((await registry.get('web-2'))?.changing).to.equal(undefined, 'a delete ends the change');
  });

  it('a delete of a name with no VM succeeds (NotFound means done, SPEC 4)', async () => {
    h = createHarness('notfound');
    const del = await h.client.deleteVm({ name: 'ghost' });
    await h.startWorker();
    const view = await h.client.waitForJob(del.jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
    expect(view.result).to.deep.equal({ deleted: false, seedsDeleted: 0 });
    expect(view.attemptsMade).to.equal(1, 'one attempt, no retry');
  });
});
