// SPEC 16: tasks, and the waits of tasks.ts: a task and a VM to run on
// the process's boards (SPEC 26), a VM's lock on a poll of its own.
import { expect } from 'chai';
import { Readable } from 'node:stream';
import { PermanentError, TransientError } from '../../src/errors.js';
import { parseUpid, TaskFailure, waitRunning, waitTask, waitUnlocked } from '../../src/provider/tasks.js';
import { realSleep, type Sleep } from '../../src/provider/waits/sleep.js';
import type { TaskLogLine } from '../../src/proxmox/api.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { fixtureData } from '../support/fixtures.js';
import { depsWith, harness } from './harness.js';
import { captureLogger } from '../support/capture-logger.js';
import { rejection } from '../support/rejection.js';

const opts = { what: 'a test task', budgetSeconds: 60 };

describe('tasks (SPEC 16)', () => {
  it('parses the node from a UPID', () => {
    expect(parseUpid('UPID:pv1-1:000A1C40:0012D6F1:68F0A1B6:imgcopy::root@pam!provisioner:')).to.deep.equal({ node: 'pv1-1', type: 'imgcopy', id: '' });
    expect(() => parseUpid('nonsense')).to.throw(PermanentError);
  });

  it('waits until the task stops and OK is success', async () => {
    const h = harness({ pve: new FakeProxmox({ taskPolls: 3 }) });
    // A plain VM: Proxmox refuses to start a template inside the task (audit 5).
    h.pve.addVm({ vmid: 150, node: 'pv1-1', config: { name: 'plain' } });
    await waitTask(h.deps, h.ctx, await h.pve.start('pv1-1', 150), opts);
    // One node task listing per poll (the board): three answer running, the fourth ended; a sleep before each, the first look a short poll after the start.
    expect(h.pve.count('nodeTasks')).to.equal(4);
    expect(h.pve.count('taskStatus')).to.equal(0);
    expect(h.clock.sleeps).to.equal(4);
  });

  it('WARNINGS: n is success and its warning lines reach the job log', async () => {
    const h = harness();
    const log = fixtureData<TaskLogLine[]>('task_log_warnings').map((l) => l.t).filter((t) => !t.startsWith('TASK'));
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'WARNINGS: 2', log });
    await waitTask(h.deps, h.ctx, await h.pve.start('pv1-1', 9001), opts);
    expect(h.lines).to.deep.equal([
      'a test task: WARNINGS: 2',
      'a test task: WARN: iothread is only valid with virtio disk or virtio-scsi-single controller, ignoring',
      'a test task: WARN: host does not support all requested CPU flags: -x2apic',
    ]);
  });

  it("a failed task is Transient, carries its exitstatus, and logs a warn line with upid and exitstatus", async () => {
    const { logger, records } = captureLogger();
    const h = harness({ logger });
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'start failed: QEMU exited with code 1' });
    const upid = await h.pve.start('pv1-1', 9001);
    const err = await rejection(waitTask(h.deps, h.ctx, upid, opts));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.contain('start failed: QEMU exited with code 1');
    expect(err.cause).to.be.instanceOf(TaskFailure);
    expect((err.cause as TaskFailure).exitstatus).to.equal('start failed: QEMU exited with code 1');
    expect(records.find((r) => r.msg === 'proxmox task failed')).to.include({ upid, exitstatus: 'start failed: QEMU exited with code 1', level: 40 });
  });

  it('a task whose text says no retry can help is Permanent (F20 shrink)', async () => {
    const h = harness();
    h.pve.addVm({ vmid: 123, config: { name: 'a', scsi0: 'local-lvm:vm-123-disk-1,size=10G' } });
    const err = await rejection(waitTask(h.deps, h.ctx, await h.pve.resize('pv1-1', 123, 'scsi0', '3G'), opts));
    expect(err).to.be.instanceOf(PermanentError);
    expect((err as PermanentError).reason).to.contain('shrinking disks is not supported');
  });

  it('polls the node named in the UPID, not the node asked (uploads, SPEC 16)', async () => {
    const h = harness({ pve: new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }], apiNode: 'a' }) });
    const upid = await h.pve.upload('b', 'proxy-seeds', 'x-seed.iso', { size: 1, open: () => Readable.from([Buffer.from('x')]) });
    await waitTask(h.deps, h.ctx, upid, opts);
    // The upload ran on a (apiNode): a's task listing, at both polls of its one-poll task.
    expect(h.pve.callsTo('nodeTasks').map((c) => c.args[0])).to.deep.equal(['a', 'a']);
    expect(h.pve.count('taskStatus')).to.equal(0);
  });

  it('a task waited with a kind is learned under that kind, not its UPID type (a clone per image, SPEC 26)', async () => {
    const h = harness({ pve: new FakeProxmox({ taskPolls: 3 }) });
    h.pve.addVm({ vmid: 150, node: 'pv1-1', config: { name: 'plain' } });
    await waitTask(h.deps, h.ctx, await h.pve.start('pv1-1', 150), { ...opts, kind: 'qmstart:debian' });
    expect(h.deps.waits.expectations.expected('qmstart:debian')).to.be.a('number');
    expect(h.deps.waits.expectations.expected('qmstart')).to.equal(undefined);
  });

  it('a budget overrun is Transient', async () => {
    const h = harness({ pve: new FakeProxmox({ taskPolls: 1_000_000 }) });
    const startedAt = h.clock.now().getTime();
    const polls: number[] = [];
    h.pve.on('nodeTasks', () => void polls.push(h.clock.now().getTime() - startedAt));
    const err = await rejection(waitTask(h.deps, h.ctx, await h.pve.start('pv1-1', 9001), { what: 'slow', budgetSeconds: 5 }));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.match(/gave up waiting for slow .* after 5 s/);
    // pollMs is 1 s: short polls doubling up to pollMs, then one a pollMs, and a last one at the budget's end (5 s), not past it.
    expect(polls).to.deep.equal([125, 375, 875, 1875, 2875, 3875, 4875, 5000]);
    expect(h.pve.count('taskStatus')).to.equal(0);
  });

  it('an abort ends the wait at once, mid-sleep, with the real sleep', async () => {
    const h = harness({ pve: new FakeProxmox({ taskPolls: 1_000_000 }) });
    const ac = new AbortController();
    // The real sleep; the job is cancelled 5 ms into the board's first one, which comes before its first poll (pollMs/8: 450 s).
    const sleep: Sleep = (ms, signal) => {
      setTimeout(() => ac.abort(new Error('job cancelled')), 5);
      return realSleep(ms, signal);
    };
    const deps = depsWith(h, { sleep, config: { ...h.config, budgets: { ...h.config.budgets, pollMs: 3_600_000 } } });
    const upid = await h.pve.start('pv1-1', 9001);
    const started = Date.now();
    const err = await rejection(waitTask(deps, { signal: ac.signal }, upid, opts));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.contain('job cancelled');
    expect(Date.now() - started).to.be.below(5000);
    expect(h.pve.methods()).to.deep.equal(['start']);
  });

  it('waitUnlocked answers the config once the lock is gone; waitRunning waits for qmpstatus running', async () => {
    const h = harness();
    const vm = h.pve.addVm({ vmid: 123, config: { name: 'a', lock: 'clone' }, status: 'running', qmpstatus: 'paused' });
    let polls = 0;
    h.pve.on('getConfig', () => {
      polls += 1;
      if (polls === 3) delete vm.config.lock;
    });
    expect((await waitUnlocked(h.deps, h.ctx, 'pv1-1', 123)).name).to.equal('a');
    expect(polls).to.equal(3);
    h.pve.on('statusCurrent', () => {
      if (h.pve.count('statusCurrent') === 2) vm.qmpstatus = 'running';
    });
    await waitRunning(h.deps, h.ctx, 'pv1-1', 123);
    expect(h.pve.count('statusCurrent')).to.equal(2);
  });
});
