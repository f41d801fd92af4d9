// SPEC 27 end to end: the worker against the simulator over HTTP, its
// webhooks POSTed to a local receiver that checks every signature.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { createWebhookQueue } from '../../src/queue/webhook-queue.js';
import { captureLogger } from '../support/capture-logger.js';
import { eventually, scanKeys } from '../support/redis.js';
import type { ReceivedRequest } from '../support/webhook-receiver.js';
import { SECRET, webhookWorld, type WebhookWorld } from './world.js';

const USER_DATA_MARKER = 'password: hunter2-in-user-data';

/** The delivery counter's value for each `event outcome` pair counted. */
async function counted(metrics: Metrics): Promise<Record<string, number>> {
  const { values } = await metrics.webhookDeliveries.get();
  return Object.fromEntries(values.map((v) => [`${String(v.labels.event)} ${String(v.labels.outcome)}`, v.value]));
}

function ofJob(jobId: string, event: string): (r: ReceivedRequest) => boolean {
  return (r) => r.body.jobId === jobId && r.body.event === event && r.status === 200;
}

/** Every value stored under the prefix, as text. */
async function everythingStored(redis: Redis, prefix: string): Promise<string> {
  const texts: string[] = [];
  for (const key of await scanKeys(redis, prefix)) {
    const type = await redis.type(key);
    if (type === 'string') texts.push((await redis.get(key)) ?? '');
    else if (type === 'hash') texts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') texts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    else if (type === 'zset') texts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
    else if (type === 'set') texts.push(JSON.stringify(await redis.smembers(key)));
    else if (type === 'stream') texts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
  }
  return texts.join('\n');
}

describe('webhooks: vm.ready, vm.deleted and job.failed, signed, at least once (SPEC 27)', function () {
  this.timeout(90_000);
  let world: WebhookWorld | undefined;

  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it('a create sends vm.ready with the address, a delete vm.deleted, a Permanent failure job.failed; each signed and its headers set', async () => {
    const w = (world = await webhookWorld('wh-events'));
    await w.receiver.listen();
    await w.startWorker();
    const { client } = w.harness;

    const created = await client.createVm({ name: 'hook-ready', node: 'pve1', waitForAddress: true, userData: `#cloud-config\n${USER_DATA_MARKER}\n` });
    const createView = await client.waitForJob(created.jobId, { timeoutMs: 30_000 });
    expect(createView.state, createView.failedReason).to.equal('completed');
    const ready = await w.receiver.waitFor(ofJob(created.jobId, 'vm.ready'));
    const result = createView.result as { vmid: number; address: string };
    expect(ready.body).to.deep.include({ event: 'vm.ready', name: 'hook-ready', jobId: created.jobId, job: 'create' });
    expect(ready.body.result).to.deep.include({ state: 'Running', node: 'pve1', vmid: result.vmid, address: result.address });
    expect(ready.body.result.address).to.be.a('string').and.not.equal('');
    expect(ready.raw).to.not.include('hunter2');
    expect(ready.raw).to.not.include('userData');

    const deleted = await client.deleteVm({ name: 'hook-ready' });
    expect((await client.waitForJob(deleted.jobId, { timeoutMs: 30_000 })).state).to.equal('completed');
    const gone = await w.receiver.waitFor(ofJob(deleted.jobId, 'vm.deleted'));
    expect(gone.body).to.deep.include({ event: 'vm.deleted', name: 'hook-ready', job: 'delete' });
    expect(gone.body.result).to.deep.include({ deleted: true, vmid: result.vmid });

    const failing = await client.createVm({ name: 'hook-typo', node: 'pve2', waitForAddress: false });
    const failedView = await client.waitForJob(failing.jobId, { timeoutMs: 30_000 });
    expect(failedView.state).to.equal('failed');
    const failed = await w.receiver.waitFor(ofJob(failing.jobId, 'job.failed'));
    expect(failed.body).to.deep.include({ event: 'job.failed', name: 'hook-typo', job: 'create' });
    expect(failed.body.result.error).to.contain("storage 'local-lvn' does not exist");

    for (const request of [ready, gone, failed]) {
      expect(request.signatureValid, request.body.event).to.equal(true);
      expect(request.method).to.equal('POST');
      expect(request.path).to.equal('/hooks/pvep');
      expect(request.headers['content-type']).to.equal('application/json');
      expect(request.headers['user-agent']).to.match(/^pve-provisioner/);
      expect(request.headers['x-delivery-id']).to.equal(request.body.deliveryId);
      expect(request.headers['x-webhook-event']).to.equal(request.body.event);
    }
    expect(new Set([ready, gone, failed].map((r) => r.body.deliveryId)).size).to.equal(3);
    // One delivery per event: nothing was sent twice.
    expect(w.receiver.received.map((r) => r.body.event).sort()).to.deep.equal(['job.failed', 'vm.deleted', 'vm.ready']);
  });

  it('a receiver that refuses, then answers 500, gets the event after retries; other VM jobs complete meanwhile', async () => {
    const w = (world = await webhookWorld('wh-down'));
    const metrics = createMetrics();
    await w.startWorker(undefined, { webhookMetrics: metrics });
    const { client } = w.harness;

    const first = await client.createVm({ name: 'hook-early', node: 'pve1', waitForAddress: false });
    expect((await client.waitForJob(first.jobId, { timeoutMs: 30_000 })).state).to.equal('completed');
    // While nothing listens: another create and a delete complete on time.
    const second = await client.createVm({ name: 'hook-meanwhile', node: 'pve1', waitForAddress: false });
    expect((await client.waitForJob(second.jobId, { timeoutMs: 30_000 })).state).to.equal('completed');
    const removed = await client.deleteVm({ name: 'hook-meanwhile' });
    expect((await client.waitForJob(removed.jobId, { timeoutMs: 30_000 })).state).to.equal('completed');
    expect(w.receiver.received).to.deep.equal([]);
    // The first event has been refused at least twice before anything listens.
    const deliveries = createWebhookQueue(w.harness.redis, w.harness.prefix, w.harness.config);
    try {
      await eventually(async () => ((await deliveries.queue.getJob(`vm.ready-${first.jobId}`))?.attemptsMade ?? 0) >= 2 || undefined);
    } finally {
      await deliveries.close();
    }

    // Up, but answering 500 to its first two requests.
    w.receiver.answer = (_request, index) => (index < 2 ? 500 : 200);
    await w.receiver.listen();
    const ready = await w.receiver.waitFor(ofJob(first.jobId, 'vm.ready'), 60_000);
    expect(ready.signatureValid).to.equal(true);
    const tries = w.receiver.received.filter((r) => r.body.deliveryId === ready.body.deliveryId);
    // Every try of one event carries the same bytes and delivery id.
    expect(new Set(tries.map((r) => r.raw)).size).to.equal(1);
    expect(new Set(tries.map((r) => r.headers['x-signature-256'])).size).to.equal(1);
    await w.receiver.waitFor(ofJob(second.jobId, 'vm.ready'), 60_000);
    await w.receiver.waitFor(ofJob(removed.jobId, 'vm.deleted'), 60_000);
    expect(w.receiver.received.filter((r) => r.status === 500)).to.have.length(2);
    // The receiver has the request before the worker has its answer and counts it: wait for the count.
    const byOutcome = await eventually(async () => {
      const now = await counted(metrics);
      return now['vm.ready delivered'] === 2 && now['vm.deleted delivered'] === 1 ? now : undefined;
    }).catch(() => counted(metrics));
    expect(byOutcome['vm.ready delivered']).to.equal(2);
    expect(byOutcome['vm.deleted delivered']).to.equal(1);
    expect(byOutcome['vm.ready retried']).to.be.at.least(2);
    expect(byOutcome).to.not.have.property('vm.ready failed');
    const { values } = await metrics.webhookDuration.get();
    expect(values.find((v) => v.metricName === 'pvep_webhook_delivery_duration_seconds_count' && v.labels.event === 'vm.deleted')?.value).to.be.at.least(1);
  });

  it('a delivery that runs out of attempts fails for good and is counted failed; the VM job it tells of stays completed', async () => {
    const w = (world = await webhookWorld('wh-spent', { attempts: 2 }));
    w.receiver.answer = () => 500;
    await w.receiver.listen();
    const metrics = createMetrics();
    await w.startWorker(undefined, { webhookMetrics: metrics });
    const created = await w.harness.client.createVm({ name: 'hook-spent', node: 'pve1', waitForAddress: false });
    expect((await w.harness.client.waitForJob(created.jobId, { timeoutMs: 30_000 })).state).to.equal('completed');
    const deliveries = createWebhookQueue(w.harness.redis, w.harness.prefix, w.harness.config);
    try {
      const state = await eventually(async () => {
        const job = await deliveries.queue.getJob(`vm.ready-${created.jobId}`);
        return (await job?.isFailed()) ? job : undefined;
      });
      expect(state.failedReason).to.equal('webhook receiver (webhooks.url) answered 500');
    } finally {
      await deliveries.close();
    }
    expect(w.receiver.received).to.have.length(2);
    expect(await counted(metrics)).to.deep.equal({ 'vm.ready retried': 1, 'vm.ready failed': 1 });
    expect((await w.harness.client.getJob(created.jobId))?.state).to.equal('completed');
  });

  it('a delivery added under fewer webhooks.attempts than the worker now has is counted failed on its own last attempt', async () => {
    const w = (world = await webhookWorld('wh-fewer', { attempts: 2 }));
    w.receiver.answer = () => 500;
    await w.receiver.listen();
    const deliveries = createWebhookQueue(w.harness.redis, w.harness.prefix, w.harness.config);
    try {
      const added = await deliveries.add({ deliveryId: 'vm.ready-create-hook-fewer-1', event: 'vm.ready', body: '{}' });
      const metrics = createMetrics();
      const config = { ...w.harness.config, webhooks: { ...w.harness.config.webhooks, attempts: 12 } };
      await w.startWorker(undefined, { config, webhookMetrics: metrics });
      await eventually(async () => ((await (await deliveries.queue.getJob(added.id ?? ''))?.isFailed()) === true || undefined));
      expect(await counted(metrics)).to.deep.equal({ 'vm.ready retried': 1, 'vm.ready failed': 1 });
    } finally {
      await deliveries.close();
    }
  });

  it('the secret appears in no log line and nowhere in Redis, the delivery job included', async () => {
    const w = (world = await webhookWorld('wh-secret'));
    await w.receiver.listen();
    w.receiver.answer = (_request, index) => (index === 0 ? 503 : 200);
    const { logger, records } = captureLogger();
    await w.startWorker(logger);
    const { client } = w.harness;
    const created = await client.createVm({ name: 'hook-secret', node: 'pve1', waitForAddress: false });
    await client.waitForJob(created.jobId, { timeoutMs: 30_000 });
    await w.receiver.waitFor(ofJob(created.jobId, 'vm.ready'));
    const typo = await client.createVm({ name: 'hook-secret-typo', node: 'pve2', waitForAddress: false });
    await client.waitForJob(typo.jobId, { timeoutMs: 30_000 });
    await w.receiver.waitFor(ofJob(typo.jobId, 'job.failed'));

    const deliveryKey = `${w.harness.prefix}:webhooks:vm.ready-${created.jobId}`;
    const deliveryJob = await w.harness.redis.hgetall(deliveryKey);
    expect(deliveryJob.data, 'the delivery job is kept in Redis').to.be.a('string');
    expect(JSON.stringify(deliveryJob)).to.not.include(SECRET);
    const stored = await everythingStored(w.harness.redis, w.harness.prefix);
    expect(stored).to.include('vm.ready');
    expect(stored).to.not.include(SECRET);
    const logged = JSON.stringify(records);
    expect(logged).to.include('webhook delivery attempt failed');
    expect(logged).to.not.include(SECRET);
  });
});
