// SPEC 16: the edges of tasks.ts that tasks.test.ts leaves open: which
// UPIDs are refused, which exit statuses count as warnings, which log
// lines are warnings, the words of each failure and each budget, a task
// log that cannot be read, a VM whose status has no qmpstatus (issue 19).
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { parseUpid, TaskFailure, taskExitOf, waitRunning, waitTask, waitUnlocked } from '../../src/provider/tasks.js';
import type { TaskStatus, Upid, VmStatus } from '../../src/proxmox/api.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { depsWith, harness } from './harness.js';
import { rejection as failure } from '../support/rejection.js';
import { captureLogger } from '../support/capture-logger.js';
import type { Harness } from './harness.js';

const opts = { what: 'a test task', budgetSeconds: 60 };

/** The harness's deps, waits included, over the fake with one Proxmox call answered by `answer` instead. */
function answering<K extends 'taskStatus' | 'statusCurrent'>(h: Harness, method: K, answer: () => Promise<K extends 'taskStatus' ? TaskStatus : VmStatus>): Harness['deps'] {
  const api = Object.create(h.pve) as FakeProxmox;
  Object.defineProperty(api, method, { value: answer });
  return depsWith(h, { api });
}

describe('task edges (SPEC 16)', () => {
  it('takes a UPID of exactly eight fields, and refuses a wrong prefix, fewer fields or an empty node, naming it', () => {
    expect(parseUpid('UPID:pv1-1:000A1C40:0012D6F1:68F0A1B6:qmstart:150:root@pam')).to.deep.equal({ node: 'pv1-1', type: 'qmstart', id: '150' });
    for (const upid of ['XUPID:pv1-1:000A1C40:0012D6F1:68F0A1B6:qmstart:150:root@pam:', 'UPID:pv1-1:000A1C40:0012D6F1:68F0A1B6:qmstart:150', 'UPID::000A1C40:0012D6F1:68F0A1B6:qmstart:150:root@pam:']) {
      let thrown: unknown;
      try {
        parseUpid(upid);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, upid).to.be.instanceOf(PermanentError);
      expect((thrown as Error).message).to.equal(`not a Proxmox task id: ${upid}`);
    }
  });

  it('a failed task names itself, the UPID and the exit status', async () => {
    const h = harness();
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'start failed: QEMU exited with code 1' });
    const upid = await h.pve.start('pv1-1', 9001);
    const err = (await failure(waitTask(h.deps, h.ctx, upid, opts))) as TransientError;
    expect(err.reason).to.equal('a test task failed on node pv1-1: start failed: QEMU exited with code 1');
    const cause = err.cause as TaskFailure;
    expect(cause.name).to.equal('TaskFailure');
    expect(cause.message).to.equal(`task ${upid} failed: start failed: QEMU exited with code 1`);
    expect(taskExitOf(err)).to.equal('start failed: QEMU exited with code 1');
  });

  it('taskExitOf looks through causes, answers undefined for anything else, and stops on a cycle', () => {
    const failed = new TaskFailure('UPID:x', 'pv1-1', 'boom');
    expect(taskExitOf(new Error('outer', { cause: new Error('middle', { cause: failed }) }))).to.equal('boom');
    expect(taskExitOf(new Error('plain'))).to.equal(undefined);
    expect(taskExitOf('not an error')).to.equal(undefined);
    const cyclic = new Error('cyclic');
    (cyclic as { cause?: unknown }).cause = cyclic;
    expect(taskExitOf(cyclic)).to.equal(undefined);
  });

  it('WARNINGS: n with any number of digits is success; anything around it is a failed task', async () => {
    const h = harness();
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'WARNINGS: 12', log: [] });
    await waitTask(h.deps, h.ctx, await h.pve.start('pv1-1', 9001), opts);
    expect(h.lines).to.deep.equal(['a test task: WARNINGS: 12']);
    for (const exitstatus of ['got WARNINGS: 2', 'WARNINGS: 2 more', 'WARNINGS: many']) {
      h.pve.setNextTaskOutcome('qmstart', { exitstatus });
      const err = await failure(waitTask(h.deps, h.ctx, await h.pve.start('pv1-1', 9001), opts));
      expect(err, exitstatus).to.be.instanceOf(TransientError);
    }
  });

  it('only lines starting with WARN: or WARNING: (any case) reach the job log, after an info line', async () => {
    const { logger, records } = captureLogger();
    const h = harness({ logger });
    const log = ['starting', 'WARN: one', 'warning: two', 'not a WARN: three', 'WARNINGS three'];
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'WARNINGS: 2', log });
    const upid = await h.pve.start('pv1-1', 9001);
    await waitTask(h.deps, h.ctx, upid, opts);
    expect(h.lines).to.deep.equal(['a test task: WARNINGS: 2', 'a test task: WARN: one', 'a test task: warning: two']);
    expect(records.find((r) => r.msg === 'proxmox task ended with warnings')).to.include({ upid, exitstatus: 'WARNINGS: 2', node: 'pv1-1', level: 30 });
  });

  it('a task log that cannot be read does not fail a task that ended with warnings', async () => {
    const { logger, records } = captureLogger();
    const h = harness({ logger });
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'WARNINGS: 1', log: ['WARN: hidden'] });
    const upid = await h.pve.start('pv1-1', 9001);
    h.pve.failNext('taskLog', new Error('log unreadable'));
    await waitTask(h.deps, h.ctx, upid, opts);
    expect(h.lines).to.deep.equal(['a test task: WARNINGS: 1']);
    expect(records.find((r) => r.msg === 'could not read the task log')).to.include({ upid, level: 40 });
  });

  it('a stopped task with no exit status is a failed task with an empty status', async () => {
    const h = harness();
    const upid: Upid = 'UPID:pv1-1:000A1C40:0012D6F1:68F0A1B6:qmstart:150:root@pam:';
    const deps = answering(h, 'taskStatus', () => Promise.resolve({ status: 'stopped' }));
    const err = (await failure(waitTask(deps, h.ctx, upid, opts))) as TransientError;
    expect(err).to.be.instanceOf(TransientError);
    expect(err.reason).to.equal('a test task failed on node pv1-1: ');
  });

  it('waitUnlocked takes an empty lock for none, and its budget names the VM and node', async () => {
    const h = harness();
    h.pve.addVm({ vmid: 123, config: { name: 'a', lock: '' } });
    expect((await waitUnlocked(h.deps, h.ctx, 'pv1-1', 123)).name).to.equal('a');
    expect(h.pve.count('getConfig')).to.equal(1);
    h.pve.addVm({ vmid: 124, config: { name: 'b', lock: 'clone' } });
    const err = await failure(waitUnlocked(h.deps, h.ctx, 'pv1-1', 124, 2));
    expect(err.message).to.equal('gave up waiting for VM 124 on pv1-1 to be unlocked after 2 s');
  });

  it('waitRunning waits out a stopped VM, takes running without qmpstatus, and its budget names the VM and node', async () => {
    const h = harness();
    const vm = h.pve.addVm({ vmid: 123, config: { name: 'a' }, status: 'stopped' });
    h.pve.on('statusCurrent', () => {
      if (h.pve.count('statusCurrent') === 3) vm.status = 'running';
    });
    vm.qmpstatus = 'running';
    await waitRunning(h.deps, h.ctx, 'pv1-1', 123);
    expect(h.pve.count('statusCurrent')).to.equal(3);

    const bare = harness();
    const deps = answering(bare, 'statusCurrent', () => Promise.resolve({ status: 'running' }));
    await waitRunning(deps, bare.ctx, 'pv1-1', 123);

    const never = harness({ pve: new FakeProxmox() });
    never.pve.addVm({ vmid: 125, config: { name: 'c' }, status: 'stopped' });
    const slow = depsWith(never, { config: { ...never.config, budgets: { ...never.config.budgets, runningSeconds: 2 } } });
    expect((await failure(waitRunning(slow, never.ctx, 'pv1-1', 125))).message).to.equal('gave up waiting for VM 125 on pv1-1 to run after 2 s');
  });
});
