// SPEC 27: the processor adds a VM job's webhook event to the delivery
// queue (real Redis) before it returns, so before BullMQ records the
// job's end: a completed create is vm.ready, a delete vm.deleted, a job
// that fails for good job.failed; a retry to come, a superseded job or a
// check adds none, and a job run twice adds its event once.
import type { Job } from 'bullmq';
import { expect } from 'chai';
import { buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import type { AnyJobDefinition } from '../../jobs/types.js';
import { PermanentError, TransientError } from '../../src/errors.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createWebhookQueue, type WebhookQueue } from '../../src/queue/webhook-queue.js';
import type { WebhookBody } from '../../src/webhooks/body.js';
import type { Delivery } from '../../src/webhooks/send.js';
import { createProcessor, type JobProcessor } from '../../src/worker/processor.js';
import { webhookEvents } from '../../src/worker/webhook-events.js';
import { createHarness, type Harness } from '../support/harness.js';
import { testJobDeps, withCreate } from '../support/processor-deps.js';
import { rejection } from '../support/rejection.js';

const CREATED = { providerId: 'vms/100200/ev', vmid: 100200, node: 'pve1', uid: 'u1', state: 'Running', address: '10.0.0.7', createdAt: '2026-01-01T00:00:00.000Z' };

describe('processor: webhook events of VM jobs (SPEC 27)', function () {
  let h: Harness;
  let deliveries: WebhookQueue;

  afterEach(async () => {
    await deliveries.close();
    await h.close();
  });

  function processor(definitions: readonly AnyJobDefinition[], queue: Pick<WebhookQueue, 'add'> = deliveries): JobProcessor {
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const deps = testJobDeps(h.provider, registry, locks);
    return createProcessor({ definitions: buildJobRegistry(definitions), deps, limits: limitsFromConfig(h.config), registry, locks, lockTtlMs: 5000, events: webhookEvents(queue) });
  }

  function world(what: string): void {
    h = createHarness(what);
    deliveries = createWebhookQueue(h.redis, h.prefix, h.config);
  }

  async function queued(jobId: string): Promise<Job> {
    const job = await h.queues.vm.getJob(jobId);
    if (!job) throw new Error(`job ${jobId} is missing`);
    return job;
  }

  /** The bodies of every delivery in the queue, by delivery id. */
  async function bodies(): Promise<Record<string, WebhookBody>> {
    const jobs = (await deliveries.queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])) as Job<Delivery>[];
    return Object.fromEntries(jobs.map((job): [string, WebhookBody] => [job.id ?? '', JSON.parse(job.data.body) as WebhookBody]));
  }

  it('a completed create adds vm.ready before it returns; run again (a stall) it adds nothing more', async () => {
    world('ev-ready');
    let address = '10.0.0.7';
    const p = processor(withCreate(() => Promise.resolve({ ...CREATED, address })));
    const made = await h.client.createVm({ name: 'ev', uid: 'u1', userData: '#cloud-config\npassword: do-not-send\n' });
    await p(await queued(made.jobId), 'token');
    const id = `vm.ready-${made.jobId}`;
    const first = await bodies();
    expect(Object.keys(first)).to.deep.equal([id]);
    expect(first[id]).to.deep.include({ deliveryId: id, event: 'vm.ready', name: 'ev', jobId: made.jobId, job: 'create' });
    expect(first[id]?.result).to.deep.equal(CREATED);
    expect(JSON.stringify(first)).to.not.include('do-not-send');

    address = '10.0.0.8';
    await p(await queued(made.jobId), 'token');
    expect(await bodies()).to.deep.equal(first);
  });

  it('a completed create that changed a VM of ours in place adds vm.updated with the fields it changed, and no vm.ready (SPEC 2, 13)', async () => {
    world('ev-updated');
    const p = processor(withCreate(() => Promise.resolve({ ...CREATED, changed: ['cores', 'diskGiB'] })));
    await h.client.createVm({ name: 'ev', uid: 'u1', cores: 2 });
    const changed = await h.client.createVm({ name: 'ev', uid: 'u1', cores: 4, diskGiB: 40 });
    await p(await queued(changed.jobId), 'token');
    const id = `vm.updated-${changed.jobId}`;
    const sent = await bodies();
    expect(Object.keys(sent)).to.deep.equal([id]);
    expect(sent[id]).to.deep.include({ deliveryId: id, event: 'vm.updated', name: 'ev', jobId: changed.jobId, job: 'create' });
    expect(sent[id]?.result).to.deep.equal({ ...CREATED, changed: ['cores', 'diskGiB'] });
  });

  it('a completed delete adds vm.deleted; a check and a superseded create add nothing', async () => {
    world('ev-deleted');
    const p = processor(jobDefinitions);
    const created = await h.client.createVm({ name: 'gone', uid: 'u1' });
    const removed = await h.client.deleteVm({ name: 'gone' });
    expect(await p(await queued(created.jobId), 'token')).to.deep.include({ superseded: true });
    await p(await queued(removed.jobId), 'token');
    const checked = await h.client.checkVm({ name: 'gone' });
    await p(await queued(checked.jobId), 'token');
    const all = await bodies();
    expect(Object.keys(all)).to.deep.equal([`vm.deleted-${removed.jobId}`]);
    expect(all[`vm.deleted-${removed.jobId}`]).to.deep.include({ event: 'vm.deleted', name: 'gone', job: 'delete' });
  });

  it('a Transient failure adds nothing while attempts remain, and job.failed on the last one, redacted', async () => {
    world('ev-failed');
    const p = processor(withCreate(() => Promise.reject(new TransientError('busy; token PVEAPIToken=root@pam!ci=0123456789abcdef'))));
    const made = await h.client.createVm({ name: 'flaky', uid: 'u1' });
    const job = await queued(made.jobId);
    const attempts = job.opts.attempts ?? 1;
    expect(attempts).to.be.greaterThan(1);
    await rejection(p(job, 'token'));
    expect(await bodies()).to.deep.equal({});
    job.attemptsMade = attempts - 1;
    await rejection(p(job, 'token'));
    const id = `job.failed-${made.jobId}-attempt-${attempts}`;
    const all = await bodies();
    expect(Object.keys(all)).to.deep.equal([id]);
    expect(all[id]).to.deep.include({ event: 'job.failed', name: 'flaky', job: 'create', jobId: made.jobId });
    expect(all[id]?.result.error).to.equal('busy; token PVEAPIToken=[REDACTED]');
  });

  it('a Permanent failure adds job.failed on its first attempt', async () => {
    world('ev-permanent');
    const p = processor(withCreate(() => Promise.reject(new PermanentError('template 9001 is not a template'))));
    const made = await h.client.createVm({ name: 'bad', uid: 'u1' });
    await rejection(p(await queued(made.jobId), 'token'));
    const all = Object.values(await bodies());
    expect(all.map((b) => [b.event, b.result.error])).to.deep.equal([['job.failed', 'template 9001 is not a template']]);
  });

  it('an event that cannot be added fails the attempt instead of completing the job', async () => {
    world('ev-noadd');
    const p = processor(
      withCreate(() => Promise.resolve(CREATED)),
      { add: () => Promise.reject(new Error('Redis went away')) },
    );
    const made = await h.client.createVm({ name: 'lost', uid: 'u1' });
    const err = await rejection(p(await queued(made.jobId), 'token'));
    expect(err.message).to.equal('Redis went away');
  });
});
