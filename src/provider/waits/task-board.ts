// The per-process task board (SPEC 26, SPEC 16): every task the process
// waits on is answered by one task listing per node per poll
// (`GET /nodes/{node}/tasks?source=all`, since the oldest waited task's
// starttime, our token's user). A waited UPID the listing does not show
// falls back to its own `tasks/{upid}/status`. A failed listing fails or
// keeps the node's waiters as listing-failures.ts says.
import type { Logger } from '../../log.js';
import type { ProxmoxApi, TaskListEntry, Upid } from '../../proxmox/api.js';
import type { OperationContext } from '../types.js';
import { callOpts } from '../context.js';
import { classifyCall } from '../errors.js';
import { ListingFailures } from './listing-failures.js';
import { boardShape, type Expectations, type ScheduleShape } from './expectations.js';
import { PollLoop, type LoopClock, type Waiter } from './poll-loop.js';

/**
 * Entries per listing. `since` keeps the listing to tasks started since
 * the oldest wait; newest come first, so a cut leaves out the oldest
 * waits, which then ask their own status.
 */
const LISTING_LIMIT = 500;

export interface TaskWaitOptions {
  what: string;
  budgetSeconds: number;
  /** Learned under this kind instead of the UPID's task type. */
  kind?: string;
}

interface TaskWaiter extends Waiter<string> {
  upid: Upid;
  type: string;
  starttime: number | undefined;
  user: string | undefined;
}

export interface BoardDeps extends LoopClock {
  api: ProxmoxApi;
  logger: Logger;
  expectations: Expectations;
  pollMs: number;
}

/** starttime and user (without `!token`) from `UPID:node:pid:pstart:starttime:type:id:user:`. */
function upidFacts(upid: Upid): { type: string; starttime: number | undefined; user: string | undefined } {
  const parts = upid.split(':');
  const starttime = /^[0-9A-Fa-f]{8}$/.test(parts[4] ?? '') ? parseInt(parts[4] ?? '', 16) : undefined;
  const user = parts[7] ? (parts[7].split('!')[0] ?? undefined) : undefined;
  return { type: parts[5] ?? '', starttime, user: user === '' ? undefined : user };
}

/** One node's waits: their loop, and the listings that failed in a row. */
class NodeWaits {
  readonly failures: ListingFailures;
  readonly loop: PollLoop<string, TaskWaiter>;

  constructor(node: string, clock: LoopClock, slackMs: number, tick: (node: NodeWaits, waiters: TaskWaiter[], now: number) => Promise<void>) {
    this.failures = new ListingFailures(`the tasks of node ${node}`);
    this.loop = new PollLoop<string, TaskWaiter>(clock, (waiters, now) => tick(this, waiters, now), slackMs);
  }
}

export class TaskBoard {
  private readonly nodes = new Map<string, NodeWaits>();
  private readonly shape: ScheduleShape;

  constructor(private readonly deps: BoardDeps) {
    this.shape = boardShape(deps.pollMs);
  }

  /** Resolves with the task's exit status once it stopped; rejects on budget, cancellation or a failed read. */
  wait(ctx: OperationContext, node: string, upid: Upid, options: TaskWaitOptions): Promise<string> {
    const parsed = upidFacts(upid);
    const facts = options.kind === undefined ? parsed : { ...parsed, type: options.kind };
    const startedAt = this.deps.now().getTime();
    const schedule = this.deps.expectations.schedule(facts.type, this.shape);
    const deadline = startedAt + options.budgetSeconds * 1000;
    return new Promise<string>((resolve, reject) => {
      this.loopOf(node).join({
        ctx,
        what: options.what,
        budgetSeconds: options.budgetSeconds,
        startedAt,
        deadline,
        schedule,
        dueAt: Math.min(startedAt + schedule.next(), deadline),
        upid,
        ...facts,
        resolve,
        reject,
      });
    });
  }

  private loopOf(node: string): PollLoop<string, TaskWaiter> {
    let waits = this.nodes.get(node);
    if (waits === undefined) {
      waits = new NodeWaits(node, this.deps, this.deps.pollMs / 8, (state, waiters, now) => this.tick(node, state, waiters, now));
      this.nodes.set(node, waits);
    }
    return waits.loop;
  }

  private async tick(node: string, state: NodeWaits, waiters: TaskWaiter[], now: number): Promise<void> {
    const { loop } = state;
    const starts = waiters.flatMap((w) => (w.starttime === undefined ? [] : [w.starttime]));
    const users = new Set(waiters.map((w) => w.user));
    // A UPID whose starttime cannot be read would be left out by any `since`.
    const since = starts.length === waiters.length ? Math.min(...starts) : undefined;
    const user = users.size === 1 ? [...users][0] : undefined;
    let entries: TaskListEntry[];
    try {
      entries = await this.deps.api.nodeTasks(node, {
        source: 'all',
        limit: LISTING_LIMIT,
        ...(since !== undefined ? { since } : {}),
        ...(user !== undefined ? { userfilter: user } : {}),
      });
      state.failures.succeeded();
    } catch (err) {
      this.listingFailed(node, state, waiters, now, err);
      return;
    }
    const listed = new Map(entries.map((e) => [e.upid, e]));
    const fallbacks: Promise<void>[] = [];
    for (const w of waiters) {
      if (!loop.has(w)) continue;
      const entry = listed.get(w.upid);
      if (entry?.status !== undefined && entry.status !== '' && entry.status !== 'RUNNING') {
        this.ended(loop, w, entry.status, now);
      } else if (!loop.isDue(w, now)) {
        continue;
      } else if (entry?.status === 'RUNNING') {
        loop.again(w);
      } else {
        fallbacks.push(this.askStatus(node, loop, w, now));
      }
    }
    await Promise.all(fallbacks);
  }

  /** A waited task the listing did not show: its own status call. */
  private async askStatus(node: string, loop: PollLoop<string, TaskWaiter>, w: TaskWaiter, now: number): Promise<void> {
    try {
      const status = await this.deps.api.taskStatus(node, w.upid, callOpts(w.ctx));
      if (status.status === 'stopped') this.ended(loop, w, status.exitstatus ?? '', now);
      else loop.again(w);
    } catch (err) {
      loop.fail(w, classifyCall(err, w.ctx.signal));
    }
  }

  private ended(loop: PollLoop<string, TaskWaiter>, w: TaskWaiter, exitstatus: string, polledAt: number): void {
    if (!loop.has(w)) return;
    this.deps.expectations.observe(w.type, polledAt - w.startedAt, w.schedule);
    loop.settle(w, exitstatus);
  }

  private listingFailed(node: string, state: NodeWaits, waiters: TaskWaiter[], now: number, err: unknown): void {
    state.failures.handle(err, { logger: this.deps.logger, line: 'listing the tasks of a node failed', fields: { node }, loop: state.loop, waiters, now });
  }

}
