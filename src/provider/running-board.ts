// The per-process board of VMs waited on to run (SPEC 26, SPEC 13 step
// 7): one `/cluster/resources?type=vm` per poll for all of them; a VM
// whose entry shows `running` (or that has no entry) is confirmed with
// its own `status/current`, which alone decides: `status` and `qmpstatus`
// both `running`. The entry's status comes from pvestatd and may lag one
// cycle (SPEC 23, 10 s): a VM that runs but still shows `stopped` is
// seen at the next cycle, within the budget; one shown `running` while
// paused (F14) fails its confirmation and waits on.
import type { ClusterResource } from '../proxmox/api.js';
import type { OperationContext } from './types.js';
import { callOpts, jobIdsOf } from './context.js';
import { classifyCall } from './errors.js';
import { ListingFailures } from './listing-failures.js';
import type { ScheduleShape } from './expectations.js';
import { PollLoop, type Waiter } from './poll-loop.js';
import type { BoardDeps } from './task-board.js';

const RUNNING = 'running';

interface RunningWaiter extends Waiter<true> {
  node: string;
  vmid: number;
}

export class RunningBoard {
  private readonly loop: PollLoop<true, RunningWaiter>;
  private readonly shape: ScheduleShape;
  private readonly failures = new ListingFailures('the cluster resources');

  constructor(private readonly deps: BoardDeps) {
    this.shape = { pollMs: deps.pollMs, shortMs: deps.pollMs / 8, unknownCapMs: deps.pollMs, firstMayExceedPoll: false };
    this.loop = new PollLoop<true, RunningWaiter>(deps, (waiters, now) => this.tick(waiters, now), deps.pollMs / 8);
  }

  wait(ctx: OperationContext, node: string, vmid: number, budgetSeconds: number): Promise<void> {
    const startedAt = this.deps.now().getTime();
    const schedule = this.deps.expectations.schedule(RUNNING, this.shape);
    const deadline = startedAt + budgetSeconds * 1000;
    return new Promise<true>((resolve, reject) => {
      this.loop.join({
        ctx,
        what: `VM ${vmid} on ${node} to run`,
        budgetSeconds,
        startedAt,
        deadline,
        schedule,
        dueAt: Math.min(startedAt + schedule.next(), deadline),
        node,
        vmid,
        resolve,
        reject,
      });
    }).then(() => undefined);
  }

  private async tick(waiters: RunningWaiter[], now: number): Promise<void> {
    let resources: ClusterResource[];
    try {
      resources = await this.deps.api.clusterResources('vm');
      this.failures.succeeded();
    } catch (err) {
      this.listingFailed(waiters, now, err);
      return;
    }
    const byVmid = new Map(resources.filter((r) => r.type === 'qemu').map((r) => [r.vmid, r]));
    await Promise.all(
      waiters.map(async (w) => {
        const entry = byVmid.get(w.vmid);
        const looksRunning = entry?.status === 'running';
        if (!looksRunning && !this.loop.isDue(w, now)) return;
        if (entry !== undefined && !looksRunning) {
          this.loop.again(w);
          return;
        }
        await this.confirm(w, now);
      }),
    );
  }

  /** status/current decides (SPEC 13 step 7); a VM with no entry answers its own error here. */
  private async confirm(w: RunningWaiter, now: number): Promise<void> {
    try {
      const s = await this.deps.api.statusCurrent(w.node, w.vmid, callOpts(w.ctx));
      if (s.status === 'running' && (s.qmpstatus ?? 'running') === 'running') {
        this.deps.expectations.observe(RUNNING, now - w.startedAt, w.schedule);
        this.loop.settle(w, true);
      } else {
        this.loop.again(w);
      }
    } catch (err) {
      this.loop.fail(w, classifyCall(err, w.ctx.signal));
    }
  }

  private listingFailed(waiters: RunningWaiter[], now: number, err: unknown): void {
    const { inARow, failWith } = this.failures.failed(err);
    this.deps.logger.warn(
      { err: err instanceof Error ? err.message : String(err), inARow, waiting: waiters.length, jobIds: jobIdsOf(waiters.map((w) => w.ctx)) },
      'listing the cluster resources failed',
    );
    for (const w of waiters) {
      if (failWith !== undefined) this.loop.fail(w, failWith(w.what));
      else if (this.loop.isDue(w, now)) this.loop.again(w);
    }
  }
}
