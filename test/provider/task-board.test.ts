// SPEC 26, SPEC 16: the per-process task board. Every wait on a node is
// answered by one task listing per poll; a UPID the listing leaves out
// asks its own status; each waiter keeps its budget and its job's
// cancellation; a failed listing fails the node's waiters at once when
// Permanent, only after LISTING_TRIES in a row when Transient.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { LISTING_TRIES } from '../../src/provider/waits/listing-failures.js';
import { TaskFailure, waitTask } from '../../src/provider/tasks.js';
import type { OperationContext } from '../../src/provider/types.js';
import type { TaskLogLine, Upid } from '../../src/proxmox/api.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { fixtureData } from '../support/fixtures.js';
import { harness, type Harness } from './harness.js';
import { rejection } from '../support/rejection.js';

const opts = { what: 'a test task', budgetSeconds: 60 };

/** A harness whose tasks run for taskPolls polls; its deps carry the process's waits, as createProvider builds them. */
function boarded(taskPolls = 2): Harness {
  return harness({ pve: new FakeProxmox({ taskPolls }) });
}

/** Starts n plain VMs' start tasks on pv1-1 and answers their UPIDs. */
async function starts(h: Harness, n: number, first = 150): Promise<Upid[]> {
  const upids: Upid[] = [];
  for (let i = 0; i < n; i += 1) {
    h.pve.addVm({ vmid: first + i, node: 'pv1-1', config: { name: `plain-${i}` } });
    upids.push(await h.pve.start('pv1-1', first + i));
  }
  return upids;
}

function ctxWith(controller: AbortController, lines?: string[]): OperationContext {
  return { signal: controller.signal, ...(lines ? { log: (l: string) => void lines.push(l) } : {}) };
}

describe('the task board (SPEC 26, SPEC 16)', () => {
  it('N concurrent waits on one node make one listing per poll, not N status calls', async () => {
    const h = boarded(3);
    const upids = await starts(h, 5);
    await Promise.all(upids.map((upid) => waitTask(h.deps, h.ctx, upid, opts)));
    expect(h.pve.count('taskStatus')).to.equal(0);
    // Each listing is one poll of every task: 3 answer running, the 4th sees them all ended.
    expect(h.pve.count('nodeTasks')).to.equal(4);
    expect([...h.pve.vms.values()].filter((v) => v.vmid >= 150 && v.status === 'running')).to.have.length(5);
  });

  it("asks for every task of the token's user since the oldest waited one started", async () => {
    const h = boarded(1);
    const upids = await starts(h, 2);
    await Promise.all(upids.map((upid) => waitTask(h.deps, h.ctx, upid, opts)));
    const oldest = Math.min(...upids.map((u) => parseInt(u.split(':')[4] ?? '', 16)));
    const [node, query] = h.pve.callsTo('nodeTasks')[0]?.args ?? [];
    expect(node).to.equal('pv1-1');
    expect(query).to.deep.include({ source: 'all', since: oldest, userfilter: 'root@pam' });
    expect((query as { limit: number }).limit).to.be.greaterThan(100);
  });

  it('a UPID the listing leaves out asks its own status; the others stay on the listing', async () => {
    const h = boarded(1);
    const [hidden, shown] = await starts(h, 2);
    if (hidden === undefined || shown === undefined) throw new Error('two tasks');
    h.pve.unlisted.add(hidden);
    await Promise.all([waitTask(h.deps, h.ctx, hidden, opts), waitTask(h.deps, h.ctx, shown, opts)]);
    const asked = h.pve.callsTo('taskStatus').map((c) => c.args[1]);
    expect(asked.length).to.be.greaterThan(0);
    expect(new Set(asked)).to.deep.equal(new Set([hidden]));
    expect(h.pve.vm(150)?.status).to.equal('running');
  });

  it("an aborted job's wait ends at once and the others go on", async () => {
    const h = boarded(5);
    const [mine, theirs] = await starts(h, 2);
    if (mine === undefined || theirs === undefined) throw new Error('two tasks');
    const controller = new AbortController();
    const cancelled = rejection(waitTask(h.deps, ctxWith(controller), mine, opts));
    const other = waitTask(h.deps, h.ctx, theirs, opts);
    await new Promise((resolve) => setImmediate(resolve));
    const listingsBefore = h.pve.count('nodeTasks');
    controller.abort(new Error('job cancelled'));
    const err = await cancelled;
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.contain('job cancelled');
    // Ended before the next poll, while the other task still runs.
    expect(h.pve.count('nodeTasks') - listingsBefore).to.be.at.most(1);
    expect(h.pve.vm(151)?.status).to.equal('stopped');
    await other;
    expect(h.pve.vm(151)?.status).to.equal('running');
  });

  it('a budget runs out per waiter: the short one gives up, the other ends', async () => {
    const h = boarded(1);
    h.pve.taskPolls = 10_000;
    const [endless] = await starts(h, 1, 150);
    h.pve.taskPolls = 3;
    const [quick] = await starts(h, 1, 160);
    if (endless === undefined || quick === undefined) throw new Error('two tasks');
    const gaveUp = rejection(waitTask(h.deps, h.ctx, endless, { what: 'the endless task', budgetSeconds: 5 }));
    await waitTask(h.deps, h.ctx, quick, { what: 'the quick task', budgetSeconds: 5 });
    const err = await gaveUp;
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.equal(`gave up waiting for the endless task (task ${endless}) after 5 s`);
    expect(h.pve.vm(160)?.status).to.equal('running');
  });

  it('a Permanent listing failure fails every waiter on that node at once', async () => {
    const h = boarded(1);
    const upids = await starts(h, 3);
    h.pve.failNext('nodeTasks', fakeErrors.forbidden('/nodes/pv1-1', 'Sys.Audit'));
    const errs = await Promise.all(upids.map((upid) => rejection(waitTask(h.deps, h.ctx, upid, opts))));
    for (const err of errs) {
      expect(err).to.be.instanceOf(PermanentError);
      expect(err.message).to.contain('could not list the tasks of node pv1-1');
      expect(err.cause).to.be.instanceOf(PermanentError);
    }
    expect(h.pve.count('nodeTasks')).to.equal(1);
    expect(h.pve.count('taskStatus')).to.equal(0);
  });

  it(`a Transient listing failure is tried again at the next poll, ${LISTING_TRIES - 1} in a row cost nothing`, async () => {
    const h = boarded(1);
    const upids = await starts(h, 2);
    h.pve.failNext('nodeTasks', fakeErrors.noRouteToHost(), LISTING_TRIES - 1);
    await Promise.all(upids.map((upid) => waitTask(h.deps, h.ctx, upid, opts)));
    expect(h.pve.count('nodeTasks')).to.equal(LISTING_TRIES - 1 + 2);
  });

  it(`${LISTING_TRIES} Transient listing failures in a row fail the node's waiters Transient`, async () => {
    const h = boarded(1);
    const upids = await starts(h, 2);
    h.pve.failNext('nodeTasks', fakeErrors.noRouteToHost(), LISTING_TRIES);
    const errs = await Promise.all(upids.map((upid) => rejection(waitTask(h.deps, h.ctx, upid, opts))));
    for (const err of errs) {
      expect(err).to.be.instanceOf(TransientError);
      expect(err.message).to.contain(`(${LISTING_TRIES} tries in a row)`).and.contain('No route to host');
    }
    expect(h.pve.count('nodeTasks')).to.equal(LISTING_TRIES);
  });

  it('keeps the semantics of a wait: WARNINGS read from the log, a failed task classified with its TaskFailure', async () => {
    const h = boarded(1);
    const lines: string[] = [];
    const log = fixtureData<TaskLogLine[]>('task_log_warnings').map((l) => l.t).filter((t) => !t.startsWith('TASK'));
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'WARNINGS: 2', log });
    h.pve.setNextTaskOutcome('qmstart', { exitstatus: 'shrinking disks is not supported' });
    const [warned, failed] = await starts(h, 2);
    if (warned === undefined || failed === undefined) throw new Error('two tasks');
    const [, err] = await Promise.all([waitTask(h.deps, ctxWith(new AbortController(), lines), warned, opts), rejection(waitTask(h.deps, h.ctx, failed, opts))]);
    expect(lines).to.deep.equal([
      'a test task: WARNINGS: 2',
      'a test task: WARN: iothread is only valid with virtio disk or virtio-scsi-single controller, ignoring',
      'a test task: WARN: host does not support all requested CPU flags: -x2apic',
    ]);
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.cause).to.be.instanceOf(TaskFailure);
    expect((err.cause as TaskFailure).exitstatus).to.equal('shrinking disks is not supported');
  });

  it('waits on two nodes make one listing per node per poll', async () => {
    const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }], taskPolls: 2 });
    const h = harness({ pve });
    const deps = h.deps;
    pve.addVm({ vmid: 150, node: 'a', config: { name: 'x' } });
    pve.addVm({ vmid: 151, node: 'b', config: { name: 'y' } });
    await Promise.all([waitTask(deps, h.ctx, await pve.start('a', 150), opts), waitTask(deps, h.ctx, await pve.start('b', 151), opts)]);
    expect(pve.callsTo('nodeTasks').map((c) => c.args[0]).sort()).to.deep.equal(['a', 'a', 'a', 'b', 'b', 'b']);
  });
});
