// The per-process board of VMs waited on to run (SPEC 26, SPEC 13 step
// 7), one loop per node. A poll with one VM due asks its
// `status/current`; a poll with more asks the node's VM listing once
// (`GET /nodes/{node}/qemu?full=1`) while that pays (node-load.ts: the
// listing asks the QMP of every running VM on the node, ours or not, so
// only while those are at most a small multiple of ours due), else each
// VM's status/current. The listing answers `status` and
// `qmpstatus` for every VM on the node as status/current does (both come
// from qemu-server's vmstatus, live from the pid and QMP, not from
// pvestatd): both `running` ends the wait, paused (F14) or stopped waits
// on. A VM the listing does not show asks its own status/current, which
// says why (gone, another node). One VM alone never costs a listing of
// every VM on its node.
import type { NodeVmEntry } from '../../proxmox/api.js';
import type { OperationContext } from '../types.js';
import { callOpts } from '../context.js';
import { classifyCall } from '../errors.js';
import { ListingFailures } from './listing-failures.js';
import type { NodeLoad } from './node-load.js';
import { boardShape, type ScheduleShape } from './expectations.js';
import { PollLoop, type Waiter } from './poll-loop.js';
import type { BoardDeps } from './task-board.js';

const RUNNING = 'running';

interface RunningWaiter extends Waiter<true> {
  node: string;
  vmid: number;
}

interface NodeRuns {
  loop: PollLoop<true, RunningWaiter>;
  failures: ListingFailures;
}

function runs(s: { status: string; qmpstatus?: string | undefined }): boolean {
  return s.status === 'running' && (s.qmpstatus ?? 'running') === 'running';
}

export class RunningBoard {
  private readonly nodes = new Map<string, NodeRuns>();
  private readonly shape: ScheduleShape;

  constructor(
    private readonly deps: BoardDeps,
    private readonly load: NodeLoad,
  ) {
    this.shape = boardShape(deps.pollMs);
  }

  /** Waits for the VM to run; the first look is at once (after a start that ended OK it normally runs). */
  wait(ctx: OperationContext, node: string, vmid: number, budgetSeconds: number): Promise<void> {
    const startedAt = this.deps.now().getTime();
    const schedule = this.deps.expectations.schedule(RUNNING, this.shape);
    const deadline = startedAt + budgetSeconds * 1000;
    return new Promise<true>((resolve, reject) => {
      this.loopOf(node).loop.join({
        ctx,
        what: `VM ${vmid} on ${node} to run`,
        budgetSeconds,
        startedAt,
        deadline,
        schedule,
        dueAt: startedAt,
        node,
        vmid,
        resolve,
        reject,
      });
    }).then(() => undefined);
  }

  private loopOf(node: string): NodeRuns {
    let runs = this.nodes.get(node);
    if (runs === undefined) {
      const failures = new ListingFailures(`the VMs of node ${node}`);
      const loop: PollLoop<true, RunningWaiter> = new PollLoop<true, RunningWaiter>(
        this.deps,
        (waiters, now) => this.tick(node, { loop, failures }, waiters, now),
        this.deps.pollMs / 8,
      );
      runs = { loop, failures };
      this.nodes.set(node, runs);
    }
    return runs;
  }

  private async tick(node: string, state: NodeRuns, waiters: RunningWaiter[], now: number): Promise<void> {
    const due = waiters.filter((w) => state.loop.isDue(w, now));
    if (!this.load.listingPays(node, due.length, new Set(waiters.map((w) => w.vmid)))) {
      await Promise.all(due.map((w) => this.confirm(state.loop, w, now)));
      return;
    }
    let entries: NodeVmEntry[];
    try {
      entries = await this.deps.api.nodeVms(node);
      state.failures.succeeded();
      this.load.sawNode(node, entries);
    } catch (err) {
      this.listingFailed(node, state, waiters, now, err);
      return;
    }
    const byVmid = new Map(entries.map((e) => [e.vmid, e]));
    const unlisted: Promise<void>[] = [];
    for (const w of waiters) {
      if (!state.loop.has(w)) continue;
      const entry = byVmid.get(w.vmid);
      if (entry !== undefined && runs(entry)) this.ran(state.loop, w, now);
      else if (!state.loop.isDue(w, now)) continue;
      else if (entry !== undefined) state.loop.again(w);
      else unlisted.push(this.confirm(state.loop, w, now));
    }
    await Promise.all(unlisted);
  }

  /** The VM's own status/current: one VM due alone, or one the listing did not show (its error says why). */
  private async confirm(loop: PollLoop<true, RunningWaiter>, w: RunningWaiter, now: number): Promise<void> {
    try {
      const s = await this.deps.api.statusCurrent(w.node, w.vmid, callOpts(w.ctx));
      if (runs(s)) this.ran(loop, w, now);
      else loop.again(w);
    } catch (err) {
      loop.fail(w, classifyCall(err, w.ctx.signal));
    }
  }

  private ran(loop: PollLoop<true, RunningWaiter>, w: RunningWaiter, now: number): void {
    // The first look is at once, not on the schedule (dueAt is still startedAt): only waits that needed another teach it.
    if (w.dueAt !== w.startedAt) this.deps.expectations.observe(RUNNING, now - w.startedAt, w.schedule);
    loop.settle(w, true);
  }

  private listingFailed(node: string, state: NodeRuns, waiters: RunningWaiter[], now: number, err: unknown): void {
    state.failures.handle(err, { logger: this.deps.logger, line: 'listing the VMs of a node failed', fields: { node }, loop: state.loop, waiters, now });
  }

}
