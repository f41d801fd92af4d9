// SPEC 1: finished jobs are kept as config says, so Redis does not grow
// without bound.
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

describe('retention of finished jobs', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('keeps only jobs.keepCompletedCount completed and jobs.keepFailedCount failed jobs', async () => {
    const refuse = (): PermanentError => new PermanentError('refused', { reason: 'refused by the test' });
    h = createHarness('retain', {
      config: { jobs: { keepCompletedCount: 2, keepFailedCount: 1 } },
      provider: { createFailures: [refuse(), refuse(), refuse()] },
    });
    await h.startWorker({ config: { ...h.config, jobs: { ...h.config.jobs, concurrency: 1 } } });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { jobId } = await h.client.createVm({ name: `keep-${i}`, uid: `u${i}` });
      ids.push(jobId);
      await h.client.waitForJob(jobId, { timeoutMs: 5000 }).catch(() => undefined);
    }
    expect(await h.queues.vm.getJobCounts('completed', 'failed')).to.deep.equal({ completed: 2, failed: 1 });
    expect(await h.client.getJob(ids[0] ?? '')).to.equal(undefined, 'the oldest job is gone');
  });
});
