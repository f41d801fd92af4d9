// SPEC 4: Transient errors are retried with growing delays, Permanent ones
// fail at once with the operator-readable reason, bad data fails at once
// naming the field (SPEC 1).
import { expect } from 'chai';
import { nameJobId } from '../../src/job-table/job-ids.js';
import { PermanentError, TransientError } from '../../src/errors.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

describe('retry policy (SPEC 4)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('retries a Transient error with growing delays, then succeeds', async () => {
    h = createHarness('transient', {
      config: { jobs: { attempts: 4, backoffMs: 150 } },
      provider: { createFailures: [new TransientError('VM is locked (clone)'), new TransientError('VM is locked (clone)')] },
    });
    const { jobId } = await h.client.createVm({ name: 'flaky', uid: 'u1' });
    await h.startWorker();
    const view = await h.client.waitForJob(jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('completed');
    expect(view.attemptsMade).to.equal(3);
    expect(view.logs.filter((line) => line.includes('failed: VM is locked (clone)'))).to.have.length(2);
    const starts = (await h.provider.calls()).filter((c) => c.op === 'create').map((c) => c.start);
    expect(starts).to.have.length(3);
    const [a = 0, b = 0, c = 0] = starts;
    expect(c - b, 'the second delay is longer than the first').to.be.greaterThan(b - a);
  });

  it('fails a Permanent error at once with its operator-readable reason', async () => {
    const reason = 'the API token lacks VM.Clone on /vms/9001: grant it to the token';
    h = createHarness('permanent', { provider: { createFailures: [new PermanentError('Permission check failed (/vms/9001, VM.Clone)', { reason })] } });
    const { jobId } = await h.client.createVm({ name: 'denied', uid: 'u1' });
    await h.startWorker();
    const view = await h.client.waitForJob(jobId, { timeoutMs: 10_000 });
    expect(view.state).to.equal('failed');
    expect(view.attemptsMade).to.equal(1);
    expect(view.failedReason).to.include(reason);
  });

  it('fails bad stored data at once, naming every bad field, without calling the provider', async () => {
    h = createHarness('baddata');
    // An old or hand-made job: the worker validates again (SPEC 1).
    const job = await h.queues.vm.add('create', { name: 'Bad_Name', uid: 'u1', cores: 'many', memoryMiB: 1024, diskGiB: 10, waitForAddress: true, generation: 1 }, { jobId: nameJobId('create', 'bad-data') });
    await h.startWorker();
    const view = await h.client.waitForJob(job.id ?? '', { timeoutMs: 10_000 });
    expect(view.state).to.equal('failed');
    expect(view.attemptsMade).to.equal(1);
    expect(view.failedReason).to.match(/\bname must be a DNS label/).and.to.match(/\bcores must be an integer/);
    expect(await h.provider.calls()).to.deep.equal([]);
  });
});
