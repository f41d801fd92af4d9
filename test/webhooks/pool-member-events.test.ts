// SPEC 27, 30: a warm pool's own VMs (`pvep-pool-*`) send no webhook: the
// refill makes and drains them for no caller. A caller's create sends its
// vm.ready as before.
import { expect } from 'chai';
import type { Job } from 'bullmq';
import { webhookEvents } from '../../src/worker/webhook-events.js';

const job = (name: string, vm: string): Job => ({ id: `${name}-${vm}-1`, name, data: { name: vm }, attemptsMade: 0 }) as unknown as Job;

describe("a pool VM's job ends send no webhook (SPEC 30)", () => {
  it('sends nothing for a member create, delete or failure, and vm.ready for a caller create', async () => {
    const sent: string[] = [];
    const events = webhookEvents({ add: (delivery: { event: string }) => Promise.resolve(void sent.push(delivery.event)) } as never);
    await events.completed(job('create', 'pvep-pool-small-1'), { state: 'Running' });
    await events.completed(job('delete', 'pvep-pool-small-1'), { deleted: true });
    await events.failedForGood(job('create', 'pvep-pool-small-2'), 'boom');
    expect(sent).to.deep.equal([]);
    await events.completed(job('create', 'web-1'), { state: 'Running' });
    expect(sent).to.deep.equal(['vm.ready']);
  });
});
