// SPEC 26, SPEC 13: the step reads creates of one process share (the
// node listing, the VM listing of the name look-up, a template's config).
// Askers at once share one call; an asker is answered only by a call sent
// after it asked; a failure reaches every asker; one asker cancelled
// leaves the others' call alone.
import { expect } from 'chai';
import { TransientError } from '../../src/errors.js';
import { SharedReads } from '../../src/provider/waits/shared-reads.js';
import { call } from '../../src/provider/call.js';
import type { CreateSpec } from '../../src/provider/types.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { addOurVm, harness } from './harness.js';
import { rejection } from '../support/rejection.js';

/** Holds every call of the fake's clusterResources until released. */
function gated(pve: FakeProxmox): { release: () => void; entered: () => Promise<void> } {
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => (release = r));
  let entered: () => void = () => undefined;
  let enteredOnce = new Promise<void>((r) => (entered = r));
  pve.on('clusterResources', async () => {
    entered();
    await gate;
  });
  return {
    release: () => {
      release();
      gate = Promise.resolve();
    },
    entered: async () => {
      await enteredOnce;
      enteredOnce = Promise.resolve();
    },
  };
}

function names(resources: { name?: string }[]): (string | undefined)[] {
  return resources.map((r) => r.name);
}

const live = (): AbortSignal => new AbortController().signal;

describe('shared step reads (SPEC 26, SPEC 13)', () => {
  it('askers at once share one call and its answer', async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    const [a, b, c] = await Promise.all([reads.vms.read(live()), reads.vms.read(live()), reads.nodes.read(live())]);
    expect(pve.callsTo('clusterResources').map((x) => x.args[0])).to.deep.equal(['vm', 'node']);
    expect(a).to.equal(b);
    expect(c).to.not.equal(a);
  });

  it('askers a few promise turns apart, in the same turn of the event loop, share one call', async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    const first = reads.vms.read(live());
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const second = reads.vms.read(live());
    expect(await first).to.equal(await second);
    expect(pve.count('clusterResources')).to.equal(1);
  });

  it('an asker while a call is on its way gets the call after it, never the older answer', async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    const gate = gated(pve);
    // The VM appears only at the second call: a look-up after it asked must see it.
    pve.on('clusterResources', () => {
      if (pve.count('clusterResources') === 2) pve.addVm({ vmid: 150, config: { name: 'late' } });
    });
    const first = reads.vms.read(live());
    await gate.entered();
    const second = reads.vms.read(live());
    const third = reads.vms.read(live());
    gate.release();
    expect(names(await first)).to.not.include('late');
    expect(names(await second)).to.include('late');
    expect(await third).to.equal(await second);
    expect(pve.count('clusterResources')).to.equal(2);
  });

  it('a failed call reaches every asker, and each asks again on its own', async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    pve.failNext('clusterResources', fakeErrors.noRouteToHost());
    const ctxs = [{ signal: live() }, { signal: live() }];
    const failures = await Promise.all(ctxs.map((ctx) => rejection(call(ctx, () => reads.vms.read(ctx.signal)))));
    for (const err of failures) expect(err).to.be.instanceOf(TransientError);
    expect(pve.count('clusterResources')).to.equal(1);
    const again = await Promise.all(ctxs.map((ctx) => reads.vms.read(ctx.signal)));
    expect(again[0]).to.be.an('array');
    expect(pve.count('clusterResources')).to.equal(2);
  });

  it("a cancelled asker leaves at once and the others' call goes on", async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    const gate = gated(pve);
    const cancelledJob = new AbortController();
    const gone = reads.vms.read(cancelledJob.signal);
    const stays = reads.vms.read(live());
    await gate.entered();
    cancelledJob.abort(new Error('job cancelled'));
    expect((await rejection(gone)).message).to.match(/cancelled: job cancelled/);
    gate.release();
    expect(await stays).to.be.an('array');
    expect(pve.count('clusterResources')).to.equal(1);
  });

  it('the shared call is aborted once every asker has left, not before', async () => {
    const signals: AbortSignal[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const reads = new SharedReads({
      clusterResources: async (_type, opts) => {
        signals.push(opts.signal);
        await gate;
        return [];
      },
      getConfig: () => Promise.resolve({}),
    });
    const [a, b] = [new AbortController(), new AbortController()];
    const [first, second] = [reads.vms.read(a.signal), reads.vms.read(b.signal)];
    await new Promise((r) => setImmediate(r));
    expect(signals).to.have.length(1);
    a.abort(new Error('a cancelled'));
    await rejection(first);
    expect(signals[0]?.aborted).to.equal(false);
    b.abort(new Error('b cancelled'));
    await rejection(second);
    expect(signals[0]?.aborted).to.equal(true);
    release();
  });

  it('a batch whose askers all left before it went is never sent', async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    const gate = gated(pve);
    const job = new AbortController();
    const sent = reads.vms.read(job.signal);
    await gate.entered();
    const later = new AbortController();
    const unsent = reads.vms.read(later.signal);
    later.abort(new Error('cancelled too'));
    job.abort(new Error('cancelled'));
    await rejection(sent);
    await rejection(unsent);
    gate.release();
    await new Promise((r) => setImmediate(r));
    expect(pve.count('clusterResources')).to.equal(1);
  });

  it('an asker who comes after every asker of the waiting batch left gets an answer, not their cancellation', async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    const gate = gated(pve);
    const sent = reads.vms.read(live());
    await gate.entered();
    const gone = new AbortController();
    const left = reads.vms.read(gone.signal);
    gone.abort(new Error('cancelled'));
    await rejection(left);
    const after = reads.vms.read(live());
    gate.release();
    await sent;
    expect(names(await after)).to.deep.equal(names(await sent));
    expect(pve.count('clusterResources')).to.equal(2);
  });

  it('one call at a time even after a batch was dropped: an asker during the call waits for the one after it', async () => {
    const pve = new FakeProxmox();
    const reads = new SharedReads(pve);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let during: Promise<unknown> | undefined;
    pve.on('clusterResources', async () => {
      // Asked while the first call is on its way, from inside it.
      if (pve.count('clusterResources') === 1) during = reads.vms.read(live());
      await gate;
    });
    const gone = new AbortController();
    const dropped = reads.vms.read(gone.signal);
    gone.abort(new Error('cancelled'));
    await rejection(dropped);
    const first = reads.vms.read(live());
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(pve.count('clusterResources')).to.equal(1);
    release();
    await first;
    await during;
    expect(pve.count('clusterResources')).to.equal(2);
  });

  it('two creates at once in one process share the node listing, the name look-up and the template config', async () => {
    const h = harness();
    const spec = (name: string, uid: string): CreateSpec => ({ name, uid, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: false });
    await Promise.all([
      h.provider.create(spec('proxy-a', 'b7e1c0de-0000-4000-8000-00000000000a'), h.ctx),
      h.provider.create(spec('proxy-b', 'b7e1c0de-0000-4000-8000-00000000000b'), h.ctx),
    ]);
    expect(h.pve.callsTo('clusterResources').map((x) => x.args[0])).to.deep.equal(['vm', 'node']);
    expect(h.pve.callsTo('getConfig').filter((x) => x.args[1] === 9001)).to.have.length(1);
    expect(h.pve.count('clone')).to.equal(2);
  });

  it('two deletes at once in one process share the VM listing', async () => {
    const h = harness();
    addOurVm(h.pve, 'proxy-a', 'b7e1c0de-0000-4000-8000-00000000000a');
    addOurVm(h.pve, 'proxy-b', 'b7e1c0de-0000-4000-8000-00000000000b');
    const results = await Promise.all([
      h.provider.delete({ name: 'proxy-a', uid: 'b7e1c0de-0000-4000-8000-00000000000a' }, h.ctx),
      h.provider.delete({ name: 'proxy-b', uid: 'b7e1c0de-0000-4000-8000-00000000000b' }, h.ctx),
    ]);
    expect(results.map((r) => r.deleted)).to.deep.equal([true, true]);
    expect(h.pve.count('clusterResources')).to.equal(1);
  });
});
