// SPEC 3: jobs of one name never run at once, across workers; jobs of
// different names run in parallel. The provider double records when each
// create ran.
import { expect } from 'chai';
import { nameJobId } from '../../src/job-table/job-ids.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import type { RecordedCall } from '../support/recording-provider.js';

function overlaps(a: RecordedCall, b: RecordedCall): boolean {
  return a.start < b.end && b.start < a.end;
}

describe('one job per name at a time (SPEC 3)', function () {
  this.timeout(60_000);
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('two workers of concurrency 8: 50 jobs of one name never overlap, jobs of other names do', async () => {
    h = createHarness('mutex', { provider: { stepMs: 4 } });
    const first = await h.client.createVm({ name: 'hot', uid: 'u-hot' });
    const job = await h.queues.vm.getJob(first.jobId);
    if (!job) throw new Error('the first job is missing');
    // 49 more jobs of the same generation (as a retry or a re-add would be),
    // so none is superseded and every one needs the lock.
    const hotIds = Array.from({ length: 49 }, () => nameJobId('create', 'hot'));
    await h.queues.vm.addBulk(Array.from({ length: 49 }, (_, i) => ({ name: 'create', data: job.data as object, opts: { jobId: hotIds[i] } })));
    const others = await Promise.all(Array.from({ length: 50 }, (_, i) => h.client.createVm({ name: `cold-${i}`, uid: `u-${i}` })));

    await Promise.all([h.startWorker(), h.startWorker()]);
    const ids = [first.jobId, ...hotIds, ...others.map((o) => o.jobId)];
    const views = await Promise.all(ids.map((id) => h.client.waitForJob(id, { timeoutMs: 45_000 })));
    expect(views.filter((v) => v.state !== 'completed').map((v) => `${v.id} ${v.state} ${v.failedReason}`)).to.deep.equal([]);

    const creates = (await h.provider.calls()).filter((c) => c.op === 'create');
    const hot = creates.filter((c) => c.name === 'hot').sort((a, b) => a.start - b.start);
    // Every job ran at least once; on a loaded machine a job whose attempt was cut short (its BullMQ lock
    // or the name's lock not renewed in time) runs again, which SPEC 3 allows: never two at once.
    expect(hot.length).to.be.at.least(50);
    for (let i = 1; i < hot.length; i++) {
      const [prev, next] = [hot[i - 1], hot[i]];
      if (!prev || !next) continue;
      expect(overlaps(prev, next), `hot runs ${i - 1} and ${i} overlap`).to.equal(false);
    }
    const cold = creates.filter((c) => c.name !== 'hot');
    const overlappingPairs = cold.flatMap((a, i) => cold.slice(i + 1).filter((b) => overlaps(a, b))).length;
    expect(overlappingPairs, 'jobs of different names run in parallel').to.be.greaterThan(0);
    expect(await h.provider.vmidsIssued()).to.equal(51, 'one VM per name');
  });
});
