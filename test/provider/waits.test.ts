// SPEC 26, SPEC 13 step 7, SPEC 1 and 10: the running board asks a VM
// due alone its status/current and several at once one node VM listing
// (`/nodes/{node}/qemu?full=1`) per poll while the node's other running
// VMs are few beside them, else each its status/current; the address wait asks only the guest agent while it
// is not up; poll schedules follow the learned durations.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { addressKind, waitAddress, type AddressTarget } from '../../src/provider/address-wait.js';
import type { ProviderDeps } from '../../src/provider/deps.js';
import type { CallOptions } from '../../src/proxmox/api.js';
import { Expectations, PollSchedule, type ScheduleShape } from '../../src/provider/waits/expectations.js';
import { waitRunning } from '../../src/provider/tasks.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { addOurVm, harness, type Harness } from './harness.js';
import { rejection } from '../support/rejection.js';

/** The name look-up's cluster listing as a create makes it before its waits: the process then knows what runs on each node. */
async function lookedUp(h: Harness): Promise<void> {
  await h.deps.waits.reads.vms.read(new AbortController().signal);
  h.pve.calls.length = 0;
}

const TASK_SHAPE: ScheduleShape = { pollMs: 1000, shortMs: 125, unknownCapMs: 1000, firstMayExceedPoll: false };

function delays(schedule: PollSchedule, n: number): number[] {
  return Array.from({ length: n }, () => schedule.next());
}

describe('the running wait (SPEC 13 step 7, SPEC 26)', () => {
  it('a VM that runs after its start costs one status/current and no resources listing', async () => {
    const h = harness();
    h.pve.addVm({ vmid: 150, config: { name: 'a' }, status: 'running' });
    await waitRunning(h.deps, h.ctx, 'pv1-1', 150);
    expect(h.pve.methods()).to.deep.equal(['statusCurrent']);
  });

  it('VMs waited on at once share one node VM listing per poll, which alone decides: paused waits on (F14)', async () => {
    const h = harness();
    for (const vmid of [150, 151, 152]) h.pve.addVm({ vmid, config: { name: `v${vmid}` }, status: 'running', qmpstatus: 'paused' });
    await lookedUp(h);
    // The VMs go on at the second listing.
    h.pve.on('nodeVms', () => {
      if (h.pve.count('nodeVms') < 2) return;
      for (const vmid of [150, 151, 152]) {
        const vm = h.pve.vm(vmid);
        if (vm) vm.qmpstatus = 'running';
      }
    });
    await Promise.all([150, 151, 152].map((vmid) => waitRunning(h.deps, h.ctx, 'pv1-1', vmid)));
    expect(h.pve.count('nodeVms')).to.equal(2);
    expect(h.pve.count('statusCurrent')).to.equal(0);
    expect(h.pve.count('clusterResources')).to.equal(0);
  });

  it('a VM the node listing does not show asks its own status/current at once, whose error it gets; the others go on', async () => {
    const h = harness();
    for (const vmid of [150, 151]) h.pve.addVm({ vmid, config: { name: `v${vmid}` }, status: 'running', qmpstatus: 'paused' });
    await lookedUp(h);
    h.pve.on('nodeVms', () => {
      if (h.pve.count('nodeVms') < 2) return;
      for (const vmid of [150, 151]) {
        const vm = h.pve.vm(vmid);
        if (vm) vm.qmpstatus = 'running';
      }
    });
    const [gone, ...there] = await Promise.allSettled([999, 150, 151].map((vmid) => waitRunning(h.deps, h.ctx, 'pv1-1', vmid)));
    expect(gone?.status).to.equal('rejected');
    expect(String((gone as PromiseRejectedResult).reason)).to.contain("Configuration file 'nodes/pv1-1/qemu-server/999.conf' does not exist");
    expect(there.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled']);
    // Its own status right after the first listing, not once it is left alone.
    expect(h.pve.methods()).to.deep.equal(['nodeVms', 'statusCurrent', 'nodeVms']);
  });

  it('a node where many VMs not ours run: each VM due asks its own status/current, never the listing that would ask all their QMP', async () => {
    const h = harness();
    for (let vmid = 100; vmid < 110; vmid++) h.pve.addVm({ vmid, config: { name: `other${vmid}` }, status: 'running' });
    for (const vmid of [150, 151, 152]) h.pve.addVm({ vmid, config: { name: `v${vmid}` }, status: 'running', qmpstatus: 'paused' });
    await lookedUp(h);
    h.pve.on('statusCurrent', () => {
      if (h.pve.count('statusCurrent') < 4) return;
      for (const vmid of [150, 151, 152]) {
        const vm = h.pve.vm(vmid);
        if (vm) vm.qmpstatus = 'running';
      }
    });
    await Promise.all([150, 151, 152].map((vmid) => waitRunning(h.deps, h.ctx, 'pv1-1', vmid)));
    expect(h.pve.count('nodeVms')).to.equal(0);
    expect(h.pve.count('statusCurrent')).to.be.at.least(6);
  });

  it('a node listing that shows many VMs not ours running turns the next polls to status/current', async () => {
    const h = harness();
    for (const vmid of [150, 151]) h.pve.addVm({ vmid, config: { name: `v${vmid}` }, status: 'running', qmpstatus: 'paused' });
    await lookedUp(h);
    // Started since the look-up: the listing is the first to show them.
    for (let vmid = 100; vmid < 110; vmid++) h.pve.addVm({ vmid, config: { name: `other${vmid}` }, status: 'running' });
    h.pve.on('statusCurrent', () => {
      for (const vmid of [150, 151]) {
        const vm = h.pve.vm(vmid);
        if (vm) vm.qmpstatus = 'running';
      }
    });
    await Promise.all([150, 151].map((vmid) => waitRunning(h.deps, h.ctx, 'pv1-1', vmid)));
    expect(h.pve.count('nodeVms')).to.equal(1);
    expect(h.pve.methods().slice(0, 3)).to.deep.equal(['nodeVms', 'statusCurrent', 'statusCurrent']);
  });

  it('a node this process has not seen listed: status/current for each VM due', async () => {
    const h = harness();
    for (const vmid of [150, 151]) h.pve.addVm({ vmid, config: { name: `v${vmid}` }, status: 'running' });
    await Promise.all([150, 151].map((vmid) => waitRunning(h.deps, h.ctx, 'pv1-1', vmid)));
    expect(h.pve.methods()).to.deep.equal(['statusCurrent', 'statusCurrent']);
  });

  it('a VM running at the first look teaches the running wait nothing; one seen later does', async () => {
    const h = harness();
    h.pve.addVm({ vmid: 150, config: { name: 'a' }, status: 'running' });
    await waitRunning(h.deps, h.ctx, 'pv1-1', 150);
    expect(h.deps.waits.expectations.expected('running')).to.equal(undefined);
    h.pve.addVm({ vmid: 151, config: { name: 'b' }, status: 'running', qmpstatus: 'paused' });
    h.pve.on('statusCurrent', () => {
      const vm = h.pve.vm(151);
      if (vm && h.pve.count('statusCurrent') >= 3) vm.qmpstatus = 'running';
    });
    await waitRunning(h.deps, h.ctx, 'pv1-1', 151);
    expect(h.deps.waits.expectations.expected('running')).to.be.above(0);
  });

  it('gives up after budgets.runningSeconds', async () => {
    const h = harness();
    h.pve.addVm({ vmid: 150, config: { name: 'a' }, status: 'stopped' });
    const err = await rejection(waitRunning(h.deps, h.ctx, 'pv1-1', 150));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.equal(`gave up waiting for VM 150 on pv1-1 to run after ${h.config.budgets.runningSeconds} s`);
  });

  it('a Permanent failure of the node listing fails every running wait on the node at once', async () => {
    const h = harness();
    for (const vmid of [150, 151]) h.pve.addVm({ vmid, config: { name: `v${vmid}` }, status: 'stopped' });
    await lookedUp(h);
    h.pve.failNext('nodeVms', fakeErrors.authFailed());
    const errors = await Promise.all([150, 151].map((vmid) => rejection(waitRunning(h.deps, h.ctx, 'pv1-1', vmid))));
    for (const [i, err] of errors.entries()) {
      expect(err).to.be.instanceOf(PermanentError);
      expect(err.message).to.contain(`could not list the VMs of node pv1-1 while waiting for VM ${150 + i} on pv1-1 to run`);
    }
    expect(h.pve.count('nodeVms')).to.equal(1);
  });
});

describe('the address wait (SPEC 1, SPEC 10, SPEC 26)', () => {
  const target = (h: Harness, vmid: number): AddressTarget => ({
    node: 'pv1-1',
    vmid,
    net0: String(h.pve.vm(vmid)?.config.net0 ?? ''),
    freshBoot: true,
    image: 'debian',
  });

  it('asks only the guest agent while it is not up, then answers its address by net0 MAC', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running', agent: { callsBeforeUp: 6 } });
    const seen = await waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, target(h, vm.vmid));
    expect(seen.state).to.equal('Running');
    expect(seen.address).to.match(/^192\.168\./);
    expect(new Set(h.pve.methods())).to.deep.equal(new Set(['agentInterfaces']));
    expect(h.pve.count('agentInterfaces')).to.equal(7);
  });

  it('an answer with no address yet is "not yet" too, still only the agent', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running', agent: { interfaces: [{ name: 'lo', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4' }] }] } });
    h.pve.on('agentInterfaces', () => {
      if (h.pve.count('agentInterfaces') === 3) delete h.pve.vm(vm.vmid)?.agent.interfaces;
    });
    const seen = await waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, target(h, vm.vmid));
    expect(seen.state).to.equal('Running');
    expect(h.pve.methods()).to.deep.equal(['agentInterfaces', 'agentInterfaces', 'agentInterfaces']);
  });

  it('any other agent answer reads the VM whole: one that is gone is Permanent', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running' });
    h.pve.vms.delete(vm.vmid);
    const err = await rejection(waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, target(h, vm.vmid)));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.contain('disappeared while waiting for its address');
    expect(h.pve.methods()).to.deep.equal(['agentInterfaces', 'clusterResources']);
  });

  it('a VM stopped under the wait is read whole and waited on, within the budget', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'stopped' });
    const err = await rejection(waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, target(h, vm.vmid)));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.equal(`gave up waiting for an address from the guest agent of web after ${h.config.budgets.addressSeconds} s`);
    expect(h.pve.count('clusterResources')).to.equal(h.pve.count('agentInterfaces'));
  });

  it('after one boot the next first look comes at the learned boot time', async () => {
    const h = harness();
    const first = addOurVm(h.pve, 'one', 'u-1', { status: 'running', qmpstatus: 'running', agent: { callsBeforeUp: 9 } });
    await waitAddress(h.deps, h.ctx, { name: 'one', uid: 'u-1' }, target(h, first.vmid));
    const learned = h.deps.waits.expectations.expected(addressKind('debian'));
    expect(learned).to.be.a('number');
    const second = addOurVm(h.pve, 'two', 'u-2', { status: 'running', qmpstatus: 'running', agent: { callsBeforeUp: 0 } });
    const before = h.clock.now().getTime();
    h.pve.on('agentInterfaces', () => {
      expect(h.clock.now().getTime() - before).to.equal(learned);
    });
    await waitAddress(h.deps, h.ctx, { name: 'two', uid: 'u-2' }, target(h, second.vmid));
    expect(h.pve.count('agentInterfaces')).to.equal(10 + 1);
  });
});

describe('the address wait before the learned boot time (SPEC 26, issue 27)', () => {
  const target = (h: Harness, vmid: number, freshBoot = true): AddressTarget => ({ node: 'pv1-1', vmid, net0: String(h.pve.vm(vmid)?.config.net0 ?? ''), freshBoot, image: 'debian' });

  /** The times of the agent calls, in ms after `from`. */
  function agentTimes(h: Harness, from: number): number[] {
    const times: number[] = [];
    h.pve.on('agentInterfaces', () => {
      times.push(h.clock.now().getTime() - from);
    });
    return times;
  }

  it('with nothing learned of the image, the first agent call comes budgets.firstAddressSeconds after the start task ended, then short polls', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running', agent: { callsBeforeUp: 2 } });
    const bootAt = h.clock.now().getTime();
    await h.clock.sleep(2000, h.ctx.signal);
    const times = agentTimes(h, bootAt);
    await waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, { ...target(h, vm.vmid), bootAt });
    expect(times).to.deep.equal([30_000, 30_500, 31_500]);
    // Learned from the start task's end, at the poll that saw it: an upper bound.
    expect(h.deps.waits.expectations.expected(addressKind('debian'))).to.equal(31_500);
    expect(h.deps.waits.expectations.expected(addressKind('ubuntu'))).to.equal(undefined);
  });

  it('a learned time too short: one not-running answer at it, then short polls', async () => {
    const h = harness();
    const expectations = h.deps.waits.expectations;
    expectations.observe(addressKind('debian'), 20_000, new PollSchedule(undefined, { pollMs: 1000, shortMs: 500, unknownCapMs: 8000, firstMayExceedPoll: true }));
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running', agent: { callsBeforeUp: 2 } });
    const bootAt = h.clock.now().getTime();
    const times = agentTimes(h, bootAt);
    await waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, { ...target(h, vm.vmid), bootAt });
    expect(times).to.deep.equal([20_000, 20_500, 21_500]);
  });

  it('an adopted VM that already ran is asked at once, then in short polls, as before', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running', agent: { callsBeforeUp: 2 } });
    const times = agentTimes(h, h.clock.now().getTime());
    await waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, target(h, vm.vmid, false));
    expect(times).to.deep.equal([0, 500, 1500]);
    expect(h.deps.waits.expectations.expected(addressKind('debian'))).to.equal(undefined);
  });

  it('budgets.addressSeconds bounds the whole wait, however late firstAddressSeconds would put the first look: the first at half the budget, the last at its end, then Transient', async () => {
    const h = harness();
    const deps = { ...h.deps, config: { ...h.config, budgets: { ...h.config.budgets, firstAddressSeconds: 600 } } };
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running', agent: { callsBeforeUp: Number.POSITIVE_INFINITY } });
    // The start task ended 100 s before the wait began (a slow running wait): the budget is still the wait's own.
    const bootAt = h.clock.now().getTime();
    await h.clock.sleep(100_000, h.ctx.signal);
    const times = agentTimes(h, bootAt);
    const err = await rejection(waitAddress(deps, h.ctx, { name: 'web', uid: 'u-1' }, { ...target(h, vm.vmid), bootAt }));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.equal(`gave up waiting for an address from the guest agent of web after ${h.config.budgets.addressSeconds} s`);
    // Half of the 300 s budget after the boot, then the doubling polls up to the budget's end (100 s + 300 s after the boot).
    expect(times[0]).to.equal(150_000);
    expect(times.at(-1)).to.equal(400_000);
    expect(h.clock.now().getTime() - bootAt).to.equal(400_000);
  });

  it('a learned boot time past the budget is bounded the same way: the look at the budget\'s end finds the address', async () => {
    const h = harness();
    const expectations = h.deps.waits.expectations;
    expectations.observe(addressKind('debian'), 500_000, new PollSchedule(undefined, { pollMs: 1000, shortMs: 500, unknownCapMs: 8000, firstMayExceedPoll: true }));
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running' });
    const bootAt = h.clock.now().getTime();
    const times = agentTimes(h, bootAt);
    const seen = await waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, { ...target(h, vm.vmid), bootAt });
    expect(seen.state).to.equal('Running');
    expect(times).to.deep.equal([h.config.budgets.addressSeconds * 1000]);
  });

  /**
   * Creates one after another of an image whose guest reports its address
   * `bootMs` after its start task ended; per create, its agent calls (ms
   * after that end) and whether the agent was up.
   */
  async function createsOf(h: Harness, creates: number, bootMs: number): Promise<{ atMs: number; up: boolean }[][]> {
    const all: { atMs: number; up: boolean }[][] = [];
    for (let i = 0; i < creates; i++) {
      const name = `web-${i}`;
      const vm = addOurVm(h.pve, name, `u-${i}`, { status: 'running', qmpstatus: 'running' });
      const bootAt = h.clock.now().getTime();
      const calls: { atMs: number; up: boolean }[] = [];
      const off = h.pve.on('agentInterfaces', () => {
        const atMs = h.clock.now().getTime() - bootAt;
        const up = atMs >= bootMs;
        vm.agent.callsBeforeUp = up ? 0 : Number.POSITIVE_INFINITY;
        calls.push({ atMs, up });
      });
      await waitAddress(h.deps, h.ctx, { name, uid: `u-${i}` }, { ...target(h, vm.vmid), bootAt });
      off();
      all.push(calls);
    }
    return all;
  }

  it('an image booting well within firstAddressSeconds is not held to it: the next creates ask at half the look that was already late, until one is early', async () => {
    const h = harness();
    const creates = await createsOf(h, 6, 10_000);
    // 30 s (nothing learned), over: at most 30, so 15 next; over: 7.5; early (three not-running
    // answers, the cold doubling gaps): seen at 11 s after a 2 s gap, its middle, 10 s, learned (SPEC 26).
    expect(creates.slice(0, 4).map((calls) => calls.map((c) => c.atMs))).to.deep.equal([[30_000], [15_000], [7_500, 8_000, 9_000, 11_000], [10_000]]);
    expect(creates.slice(0, 4).map((calls) => calls.filter((c) => !c.up).length)).to.deep.equal([0, 0, 3, 0]);
    for (const calls of creates.slice(3)) expect(calls[0]?.atMs).to.be.within(9_500, 11_000);
  });

  it('an agent up at once: the halving stops at pollMs, where the look is learned as a sample', async () => {
    const h = harness();
    const creates = await createsOf(h, 7, 0);
    const firsts = creates.map((calls) => calls[0]?.atMs ?? Number.NaN);
    expect(firsts.slice(0, 5)).to.deep.equal([30_000, 15_000, 7_500, 3_750, 1_875]);
    // 1.875 s learned as a sample (an upper bound), then as any learned time: never halved below pollMs.
    for (const first of firsts.slice(5)) expect(first).to.be.within(1_800, 2_500);
    expect(creates.every((calls) => calls.length === 1)).to.equal(true);
  });

  it('an image booting just under firstAddressSeconds: one early look at the half, then learned from the polls after it', async () => {
    const h = harness();
    const creates = await createsOf(h, 3, 20_000);
    // Seen at 22.5 s after a 4 s gap: its middle, 20.5 s, learned.
    expect(creates.map((calls) => calls.map((c) => c.atMs))).to.deep.equal([[30_000], [15_000, 15_500, 16_500, 18_500, 22_500], [20_500]]);
  });

  it('an image booting past firstAddressSeconds learns from the polls after it: the middle of the 8 s gap before the poll that saw it (SPEC 26, SPEC 28 bench)', async () => {
    const h = harness();
    const creates = await createsOf(h, 2, 47_000);
    // F21's 47 s boot: seen at 53.5 s after the gap from 45.5 s; 49.5 s learned, not 53.5 s.
    expect(creates.map((calls) => calls.map((c) => c.atMs))).to.deep.equal([[30_000, 30_500, 31_500, 33_500, 37_500, 45_500, 53_500], [49_500]]);
    // The second, over at its first look, then counts 2% under it (weight 0.3), as before.
    expect(h.deps.waits.expectations.expected(addressKind('debian'))).to.be.closeTo(49_500 * 0.7 + 49_500 * 0.98 * 0.3, 1);
  });

  it('a boot in the lower half of the cold wait\'s last 8 s gap: the next create\'s first look lands after it, with no not-running answer (SPEC 26)', async () => {
    for (const bootMs of [45_600, 47_000, 49_500]) {
      const h = harness();
      const [cold, next] = await createsOf(h, 2, bootMs);
      expect(cold?.at(-1)?.atMs, `boot ${bootMs}`).to.equal(53_500);
      expect(next?.map((c) => c.atMs), `boot ${bootMs}`).to.deep.equal([49_500]);
      expect(next?.every((c) => c.up), `boot ${bootMs}`).to.equal(true);
    }
  });

  it('a boot in the upper half of the cold wait\'s last 8 s gap: the next create asks at the middle, one not-running answer when the boot is within a short poll of it, then short polls (SPEC 26)', async () => {
    const h = harness();
    const [cold, next] = await createsOf(h, 2, 50_000);
    expect(cold?.at(-1)?.atMs).to.equal(53_500);
    expect(next?.map((c) => ({ ...c }))).to.deep.equal([{ atMs: 49_500, up: false }, { atMs: 50_000, up: true }]);
  });

  it('a boot at the end of the cold wait\'s last gap: the next create pays the half gap in short polls once, then learns the poll that saw it (SPEC 26)', async () => {
    const h = harness();
    const creates = await createsOf(h, 2, 53_500);
    expect(creates[1]?.map((c) => c.atMs)).to.deep.equal([49_500, 50_000, 51_000, 52_000, 53_000, 54_000]);
    // 54 s after a 1 s gap (pollMs): the poll's time, moving the mean 30% of the way up.
    expect(h.deps.waits.expectations.expected(addressKind('debian'))).to.be.closeTo(49_500 * 0.7 + 54_000 * 0.3, 1);
  });
});

describe('the learned boot time counts from the agent call\'s send, not its ask (issue 27, SPEC 26, SPEC 28)', () => {
  const target = (h: Harness, vmid: number): AddressTarget => ({ node: 'pv1-1', vmid, net0: String(h.pve.vm(vmid)?.config.net0 ?? ''), freshBoot: true, image: 'debian' });

  /** The provider's seam with each agent call held `holdMs(n)` (its n-th, from 1) before it is sent: a daemon slot or the request budget. */
  function heldBeforeSend(h: Harness, holdMs: (n: number) => number): ProviderDeps {
    let n = 0;
    const api = new Proxy(h.pve, {
      get(target, prop) {
        if (prop === 'agentInterfaces') {
          return async (node: string, vmid: number, opts?: CallOptions) => {
            n += 1;
            await h.clock.sleep(holdMs(n), h.ctx.signal);
            return target.agentInterfaces(node, vmid, opts);
          };
        }
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { ...h.deps, api };
  }

  /** A guest whose agent answers from `upMs` after `bootAt` on. */
  function upFrom(h: Harness, vmid: number, bootAt: number, upMs: number): void {
    const vm = h.pve.vm(vmid);
    h.pve.on('agentInterfaces', () => {
      if (vm !== undefined) vm.agent.callsBeforeUp = h.clock.now().getTime() - bootAt >= upMs ? 0 : Number.POSITIVE_INFINITY;
    });
  }

  it('a poll held 3 s before its send that finds the guest up teaches the send\'s time, an upper bound, not the ask\'s (the guest may have come up while it was held)', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running' });
    const bootAt = h.clock.now().getTime();
    upFrom(h, vm.vmid, bootAt, 31_000);
    const deps = heldBeforeSend(h, (n) => (n === 2 ? 3000 : 0));
    await waitAddress(deps, h.ctx, { name: 'web', uid: 'u-1' }, { ...target(h, vm.vmid), bootAt });
    // Asked at 30 s (not up), asked again at 30.5 s, sent at 33.5 s: up. The ask (30.5 s) is shorter than the boot.
    expect(h.deps.waits.expectations.expected(addressKind('debian'))).to.equal(33_500);
  });

  it('the first look at the learned time, held 5 s before its send, does not push the learned time up', async () => {
    const h = harness();
    const expectations = h.deps.waits.expectations;
    expectations.observe(addressKind('debian'), 20_000, new PollSchedule(undefined, { pollMs: 1000, shortMs: 500, unknownCapMs: 8000, firstMayExceedPoll: true }));
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running' });
    const bootAt = h.clock.now().getTime();
    upFrom(h, vm.vmid, bootAt, 10_000);
    await waitAddress(heldBeforeSend(h, () => 5000), h.ctx, { name: 'web', uid: 'u-1' }, { ...target(h, vm.vmid), bootAt });
    expect(h.clock.now().getTime() - bootAt).to.equal(25_000);
    // Sent 5 s after its plan: up by 25 s says nothing of 20 s, so nothing is learned (nor pushed down).
    expect(expectations.expected(addressKind('debian'))).to.equal(20_000);
  });

  it('a look of a learned time sent late that finds a guest up only after its plan does not take the learned time down: no drift below the boot under a long storm, no `not running` after it', async () => {
    const h = harness();
    const expectations = h.deps.waits.expectations;
    expectations.observe(addressKind('debian'), 20_000, new PollSchedule(undefined, { pollMs: 1000, shortMs: 500, unknownCapMs: 8000, firstMayExceedPoll: true }));
    // The guest boots in 22 s; every look is held 5 s before its send (a storm's slot queue).
    for (let i = 0; i < 20; i += 1) {
      const vm = addOurVm(h.pve, `web-${i}`, `u-${i}`, { status: 'running', qmpstatus: 'running' });
      const bootAt = h.clock.now().getTime();
      upFrom(h, vm.vmid, bootAt, 22_000);
      await waitAddress(heldBeforeSend(h, () => 5000), h.ctx, { name: `web-${i}`, uid: `u-${i}` }, { ...target(h, vm.vmid), bootAt });
    }
    expect(expectations.expected(addressKind('debian'))).to.be.at.least(20_000);
  });

  it('a first look late because the running wait ended late counts at firstAddressSeconds: the guess is half of it, not half of the lateness', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, 'web', 'u-1', { status: 'running', qmpstatus: 'running' });
    const bootAt = h.clock.now().getTime();
    await h.clock.sleep(40_000, h.ctx.signal);
    await waitAddress(h.deps, h.ctx, { name: 'web', uid: 'u-1' }, { ...target(h, vm.vmid), bootAt });
    expect(h.deps.waits.expectations.expected(addressKind('debian'))).to.equal(15_000);
  });
});

describe('poll schedules (SPEC 26)', () => {
  it('with nothing known: short polls from the small fraction, doubling up to pollMs', () => {
    expect(delays(new PollSchedule(undefined, TASK_SHAPE), 6)).to.deep.equal([125, 250, 500, 1000, 1000, 1000]);
  });

  it('a task expected sooner than pollMs: the first poll at the expected time, then short polls', () => {
    expect(delays(new PollSchedule(400, TASK_SHAPE), 5)).to.deep.equal([400, 125, 250, 500, 1000]);
  });

  it('a task expected later than pollMs: no gap above pollMs, one poll landing on the expected time', () => {
    const gaps = delays(new PollSchedule(2500, TASK_SHAPE), 4);
    expect(gaps).to.deep.equal([500, 1000, 1000, 125]);
    expect(Math.max(...gaps)).to.be.at.most(1000);
  });

  it('the address wait: the first look at the expected time even past pollMs', () => {
    const shape: ScheduleShape = { pollMs: 1000, shortMs: 500, unknownCapMs: 8000, firstMayExceedPoll: true };
    expect(delays(new PollSchedule(47_000, shape), 4)).to.deep.equal([47_000, 500, 1000, 1000]);
    expect(delays(new PollSchedule(undefined, shape), 7)).to.deep.equal([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('learns per kind: a wait over at its planned poll counts a little shorter, one over later counts as that poll', () => {
    const e = new Expectations();
    const unknown = e.schedule('qmclone', TASK_SHAPE);
    delays(unknown, 4);
    e.observe('qmclone', 1875, unknown);
    expect(e.expected('qmclone')).to.equal(1875);
    expect(e.expected('qmstart')).to.equal(undefined);
    const onTime = e.schedule('qmclone', TASK_SHAPE);
    delays(onTime, 2);
    e.observe('qmclone', 1875, onTime);
    expect(e.expected('qmclone')).to.be.below(1875).and.above(1800);
  });

  /** Two waits of the kind seen at these times, each over at a poll outside any plan. */
  function learnedFrom(kind: string, ...elapsed: number[]): Expectations {
    const e = new Expectations();
    for (const ms of elapsed) e.observe(kind, ms, new PollSchedule(undefined, TASK_SHAPE));
    return e;
  }

  it('a steady task expected later than pollMs: its first poll at the expected time plus a margin (a short poll and the spread), past pollMs, then short polls', () => {
    const e = learnedFrom('qmclone', 2000, 2000);
    expect(e.steady('qmclone')).to.equal(true);
    // 2000 learned, margin one short poll (125) and no spread.
    expect(delays(e.schedule('qmclone', TASK_SHAPE), 4)).to.deep.equal([2125, 125, 250, 500]);
    // 2000 then 2400: mean 2120, spread 120; the first poll waits for the spread too.
    const spread = learnedFrom('qmclone', 2000, 2400);
    expect(spread.schedule('qmclone', TASK_SHAPE).next()).to.be.closeTo(2120 + 125 + 120, 1e-9);
  });

  it('one sample, or samples far apart, keep every gap within pollMs', () => {
    const once = learnedFrom('qmclone', 2000);
    expect(once.steady('qmclone')).to.equal(false);
    expect(Math.max(...delays(once.schedule('qmclone', TASK_SHAPE), 4))).to.be.at.most(1000);
    const wide = learnedFrom('qmclone', 1000, 9000);
    expect(wide.steady('qmclone')).to.equal(false);
    expect(Math.max(...delays(wide.schedule('qmclone', TASK_SHAPE), 8))).to.be.at.most(1000);
  });

  it('the margin of a steady first poll is not learned: waits over at it bring the expectation down, not up', () => {
    const e = learnedFrom('qmclone', 2000, 2000);
    for (let i = 0; i < 5; i++) {
      const schedule = e.schedule('qmclone', TASK_SHAPE);
      const first = schedule.next();
      e.observe('qmclone', first, schedule);
    }
    expect(e.expected('qmclone')).to.be.below(2000).and.above(1900);
  });
});
