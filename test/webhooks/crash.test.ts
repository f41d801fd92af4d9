// SPEC 27's at-least-once across a crash: a worker SIGKILLed while its
// delivery waits for the receiver's answer; the next worker takes the
// delivery over as stalled and sends it again, same delivery id, same
// bytes, signed.
import { expect } from 'chai';
import { killChildWorkers, startChildWorker } from '../support/child-process.js';
import { webhookWorld, type WebhookWorld } from './world.js';

describe('webhooks across a worker crash (SPEC 27)', function () {
  this.timeout(90_000);
  let world: WebhookWorld | undefined;

  afterEach(async () => {
    killChildWorkers();
    await world?.close();
    world = undefined;
  });

  it('a worker SIGKILLed mid-delivery: the next worker sends the event again with the same delivery id and a valid signature', async () => {
    const w = (world = await webhookWorld('wh-crash', { timeoutMs: 30_000 }));
    // The first request is held open: the worker is killed while it waits.
    w.receiver.answer = (_request, index) => (index === 0 ? 'hold' : 200);
    await w.receiver.listen();
    const child = { prefix: w.harness.config.redis.prefix, stepMs: 0, config: w.overrides, realProvider: true };
    const first = await startChildWorker(child);
    const created = await w.harness.client.createVm({ name: 'hook-crash', node: 'pve1', waitForAddress: false });
    expect((await w.harness.client.waitForJob(created.jobId, { timeoutMs: 30_000 })).state).to.equal('completed');
    const held = await w.receiver.waitFor((r) => r.status === 'hold');
    expect(held.body).to.deep.include({ event: 'vm.ready', jobId: created.jobId });

    first.process.kill('SIGKILL');
    await first.exited;
    await startChildWorker(child);
    const again = await w.receiver.waitFor((r) => r.status === 200, 30_000);
    expect(again.body.deliveryId).to.equal(held.body.deliveryId);
    expect(again.headers['x-delivery-id']).to.equal(held.body.deliveryId);
    expect(again.raw).to.equal(held.raw);
    expect(again.signatureValid).to.equal(true);
    expect(held.signatureValid).to.equal(true);
  });
});
