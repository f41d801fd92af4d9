// SPEC 34: a VM job's webhook events go to webhooks.url (the operator's,
// every event) and to the URL of the tenant its data names, signed with
// that tenant's own key; never to another tenant. A job's data gets its
// tenant from the accept (the main session's part): these tests set it on
// the waiting delete job before a worker takes it (a create's spec with a
// tenant reaches the provider until the jobs' part strips it).
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { Job } from 'bullmq';
import { createWebhookQueue } from '../../src/queue/webhook-queue.js';
import { keys } from '../../src/redis-keys.js';
import type { Delivery } from '../../src/webhooks/send.js';
import { tenantWebhookUrls, TENANT_URLS_TTL_MS } from '../../src/webhooks/tenant-urls.js';
import { webhookEvents } from '../../src/worker/webhook-events.js';
import { captureLogger } from '../support/capture-logger.js';
import { freePort } from '../support/free-port.js';
import { deletePrefix, newRedis, uniquePrefix } from '../support/redis.js';
import { webhookReceiver } from '../support/webhook-receiver.js';
import type { ReceivedRequest, WebhookReceiver } from '../support/webhook-receiver.js';
import { SECRET, webhookWorld, type WebhookWorld } from './world.js';

/** The tenant's key as the README tells the operator it is made, with node:crypto (not the service's code). */
const keyOf = (tenant: string): string => createHmac('sha256', SECRET).update(`pvep-tenant:${tenant}`).digest('hex');

const job = (name: string, data: Record<string, unknown>): Job => ({ id: `${name}-${String(data.name)}-1`, name, data, attemptsMade: 0 }) as unknown as Job;

const URLS: Record<string, string> = { alpha: 'https://alpha.example/hooks', beta: 'https://beta.example/hooks' };

function recording(): { sent: Delivery[]; add: (delivery: Delivery) => Promise<Job> } {
  const sent: Delivery[] = [];
  return { sent, add: (delivery) => Promise.resolve(void sent.push(delivery) as unknown as Job) };
}

describe("tenants' webhooks (SPEC 34)", function () {
  this.timeout(90_000);

  describe('which deliveries an event makes', () => {
    const tenantUrl = (tenant: string): Promise<string | undefined> => Promise.resolve(URLS[tenant]);

    it("a job of a tenant's name goes to webhooks.url and to that tenant's URL alone, under a delivery id of its own", async () => {
      const deliveries = recording();
      const events = webhookEvents(deliveries, () => new Date('2030-01-01T00:00:00Z'), { operator: true, tenantUrl });
      await events.completed(job('create', { name: 'a-1', tenant: 'alpha' }), { state: 'Running' });
      expect(deliveries.sent.map((d) => [d.deliveryId, d.url, d.tenant])).to.deep.equal([
        ['vm.ready-create-a-1-1', undefined, undefined],
        ['vm.ready-create-a-1-1-tenant-alpha', URLS.alpha, 'alpha'],
      ]);
      const [operator, alpha] = deliveries.sent.map((d) => JSON.parse(d.body) as Record<string, unknown>);
      expect(alpha).to.deep.equal({ ...operator, deliveryId: 'vm.ready-create-a-1-1-tenant-alpha' });
      // The delivery carries where and whose, never a key.
      expect(Object.keys(deliveries.sent[1] ?? {}).sort()).to.deep.equal(['body', 'deliveryId', 'event', 'tenant', 'url']);
    });

    it("a job without a tenant is the default tenant's; a tenant without a URL gets nothing; failures and warnings go the same way", async () => {
      const deliveries = recording();
      const events = webhookEvents(deliveries, undefined, { operator: true, tenantUrl });
      await events.completed(job('delete', { name: 'old-1' }), { deleted: true });
      await events.completed(job('create', { name: 'g-1', tenant: 'gamma' }), { state: 'Running' });
      await events.failedForGood(job('create', { name: 'b-1', tenant: 'beta' }), 'boom');
      await events.expiring('b-2', 'lease-warning-b-2-1', { expiresAt: '2030-01-01T00:00:00.000Z', version: 1, onExpiry: 'delete' }, 'beta');
      expect(deliveries.sent.map((d) => [d.deliveryId, d.tenant])).to.deep.equal([
        ['vm.deleted-delete-old-1-1', undefined],
        ['vm.ready-create-g-1-1', undefined],
        ['job.failed-create-b-1-1-attempt-1', undefined],
        ['job.failed-create-b-1-1-attempt-1-tenant-beta', 'beta'],
        ['vm.expiring-lease-warning-b-2-1', undefined],
        ['vm.expiring-lease-warning-b-2-1-tenant-beta', 'beta'],
      ]);
    });

    it("with webhooks.url empty only the tenants' copies are made", async () => {
      const deliveries = recording();
      await webhookEvents(deliveries, undefined, { operator: false, tenantUrl }).completed(job('create', { name: 'a-1', tenant: 'alpha' }), {});
      expect(deliveries.sent.map((d) => d.deliveryId)).to.deep.equal(['vm.ready-create-a-1-1-tenant-alpha']);
    });
  });

  it('the published URLs are read at most once per 10 s, and read again after', async () => {
    const redis = newRedis();
    const prefix = uniquePrefix('tenant-urls');
    try {
      let now = 1_000_000;
      const urlOf = tenantWebhookUrls(redis, prefix, () => now);
      await redis.hset(keys.tenantWebhooks(prefix), 'alpha', URLS.alpha ?? '');
      expect(await urlOf('alpha')).to.equal(URLS.alpha);
      expect(await urlOf('beta')).to.equal(undefined);
      await redis.hset(keys.tenantWebhooks(prefix), 'beta', URLS.beta ?? '');
      now += TENANT_URLS_TTL_MS - 1;
      expect(await urlOf('beta')).to.equal(undefined);
      now += 1;
      expect(await urlOf('beta')).to.equal(URLS.beta);
    } finally {
      await deletePrefix(redis, prefix);
      redis.disconnect();
    }
  });

  describe('through the worker', () => {
    let world: WebhookWorld | undefined;
    const receivers: WebhookReceiver[] = [];

    /** A receiver checking signatures under `tenant`'s key, published as its URL. */
    async function tenantReceiver(w: WebhookWorld, tenant: string): Promise<WebhookReceiver> {
      const receiver = webhookReceiver(await freePort(), keyOf(tenant));
      receivers.push(receiver);
      await receiver.listen();
      await w.harness.redis.hset(keys.tenantWebhooks(w.harness.prefix), tenant, receiver.url);
      return receiver;
    }

    /** A delete of `name` whose job is `tenant`'s, as the accept will make it: its vm.deleted is that tenant's. */
    async function deleteAs(w: WebhookWorld, name: string, tenant: string): Promise<string> {
      const { jobId } = await w.harness.client.deleteVm({ name });
      const waiting = await w.harness.queues.vm.getJob(jobId);
      await waiting?.updateData({ ...(waiting.data as object), tenant });
      return jobId;
    }

    const deletedOf = (jobId: string) => (r: ReceivedRequest) => r.body.jobId === jobId && r.body.event === 'vm.deleted' && r.status === 200;

    afterEach(async () => {
      await world?.close();
      world = undefined;
      await Promise.all(receivers.splice(0).map((r) => r.close()));
    });

    it("each tenant's receiver gets its own names' events alone, signed with its own key; the operator's gets all", async () => {
      const w = (world = await webhookWorld('wh-tenants'));
      await w.receiver.listen();
      const alpha = await tenantReceiver(w, 'alpha');
      const beta = await tenantReceiver(w, 'beta');
      const alphaJob = await deleteAs(w, 'alpha-vm', 'alpha');
      const betaJob = await deleteAs(w, 'beta-vm', 'beta');
      await w.startWorker();

      const toAlpha = await alpha.waitFor(deletedOf(alphaJob));
      const toBeta = await beta.waitFor(deletedOf(betaJob));
      const operator = [await w.receiver.waitFor(deletedOf(alphaJob)), await w.receiver.waitFor(deletedOf(betaJob))];
      expect(toAlpha.signatureValid).to.equal(true);
      expect(toBeta.signatureValid).to.equal(true);
      expect(operator.map((r) => r.signatureValid)).to.deep.equal([true, true]);
      expect(toAlpha.headers['x-delivery-id']).to.equal(`vm.deleted-${alphaJob}-tenant-alpha`);
      expect(toAlpha.body).to.deep.include({ deliveryId: `vm.deleted-${alphaJob}-tenant-alpha`, name: 'alpha-vm' });
      expect(operator[0]?.headers['x-delivery-id']).to.equal(`vm.deleted-${alphaJob}`);
      // Not the operator's signature: a tenant's key signs only its own copies.
      expect(toAlpha.headers['x-signature-256']).to.not.equal(`sha256=${createHmac('sha256', SECRET).update(toAlpha.raw).digest('hex')}`);
      expect(alpha.received.map((r) => r.body.name)).to.deep.equal(['alpha-vm']);
      expect(beta.received.map((r) => r.body.name)).to.deep.equal(['beta-vm']);
    });

    it("with webhooks.url empty and the secret file there, the tenant's copies still go and no operator's delivery is made", async () => {
      const w = (world = await webhookWorld('wh-tenants-only', { url: '' }));
      const alpha = await tenantReceiver(w, 'alpha');
      const alphaJob = await deleteAs(w, 'alpha-vm', 'alpha');
      await w.startWorker();
      const got = await alpha.waitFor(deletedOf(alphaJob));
      expect(got.signatureValid).to.equal(true);
      const deliveries = createWebhookQueue(w.harness.redis, w.harness.prefix, w.harness.config);
      try {
        expect(await deliveries.queue.getJob(`vm.deleted-${alphaJob}`)).to.equal(undefined);
      } finally {
        await deliveries.close();
      }
    });

    it('with webhooks.url empty and no secret file, a tenant URL gets nothing and one warning says why', async () => {
      const w = (world = await webhookWorld('wh-tenants-nosecret', { url: '', secretFile: '/nonexistent/pvep-webhook-secret' }));
      await tenantReceiver(w, 'alpha');
      const first = await deleteAs(w, 'alpha-vm', 'alpha');
      const second = await deleteAs(w, 'alpha-vm2', 'alpha');
      const { logger, records } = captureLogger();
      await w.startWorker(logger);
      for (const jobId of [first, second]) {
        const v = await w.harness.client.waitForJob(jobId, { timeoutMs: 30_000 });
        expect(v.state, v.failedReason).to.equal('completed');
      }
      const warnings = records.filter((r) => typeof r.msg === 'string' && r.msg.includes('has a webhook URL'));
      expect(warnings).to.have.length(1);
      expect(warnings[0]?.msg).to.match(/^tenant alpha has a webhook URL, but .*webhooks\.secretFile.*: no tenant's webhooks are sent/);
      const deliveries = createWebhookQueue(w.harness.redis, w.harness.prefix, w.harness.config);
      try {
        expect(await deliveries.queue.getJobCounts()).to.deep.include({ waiting: 0, active: 0, completed: 0, failed: 0, delayed: 0 });
      } finally {
        await deliveries.close();
      }
    });
  });
});
