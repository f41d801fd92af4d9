// Proxmox tasks (F16), computed from timestamps: a task knows when it ends,
// and its effect is applied by `settle` the first time anyone looks after
// that moment. No timer runs per task or per VM, so ten thousand idle VMs
// cost nothing and a paused clock would freeze every task.

export interface TaskOwner {
  user: string;
  tokenid: string;
}

/** What a task does when its time is up: its exit status and its log lines. */
export interface TaskOutcome {
  exitstatus: string;
  log: string[];
}

export interface NewTask {
  node: string;
  type: string;
  id: string;
  owner: TaskOwner;
  startAt: number;
  endAt: number;
  /** Log lines shown while the task runs. */
  runningLog?: string[];
  run: (endAt: number) => TaskOutcome;
}

export interface SimTask {
  upid: string;
  node: string;
  type: string;
  id: string;
  user: string;
  tokenid: string;
  pid: number;
  pstart: number;
  starttime: number;
  startAt: number;
  endAt: number;
  runningLog: string[];
  outcome?: TaskOutcome;
  run: (endAt: number) => TaskOutcome;
}

const hex8 = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');

/** Finished tasks kept for status and log reads; the oldest go first. */
const KEPT_TASKS = 50_000;

export class TaskBook {
  private readonly tasks = new Map<string, SimTask>();
  private readonly pending: SimTask[] = [];
  private nextPid = 0x0a1b2c;

  create(init: NewTask): SimTask {
    const pid = this.nextPid++;
    const starttime = Math.floor(init.startAt / 1000);
    const pstart = 1_234_567 + (pid % 100_000);
    const user = `${init.owner.user}!${init.owner.tokenid}`;
    const upid = `UPID:${init.node}:${hex8(pid)}:${hex8(pstart)}:${hex8(starttime)}:${init.type}:${init.id}:${user}:`;
    const task: SimTask = {
      upid,
      node: init.node,
      type: init.type,
      id: init.id,
      user: init.owner.user,
      tokenid: init.owner.tokenid,
      pid,
      pstart,
      starttime,
      startAt: init.startAt,
      endAt: init.endAt,
      runningLog: init.runningLog ?? [],
      run: init.run,
    };
    this.tasks.set(upid, task);
    this.push(task);
    this.trim();
    return task;
  }

  /**
   * Runs fn at `at` (ms) during settle, in order with the tasks' ends; no
   * UPID, nothing to poll (a step inside a task, e.g. a clone writing its
   * full config after the first disk).
   */
  schedule(at: number, fn: () => void): void {
    const pid = this.nextPid++;
    const step: SimTask = {
      upid: '', node: '', type: '', id: '', user: '', tokenid: '', pid, pstart: 0, starttime: 0, startAt: at, endAt: at, runningLog: [],
      run: () => {
        fn();
        return { exitstatus: 'OK', log: [] };
      },
    };
    this.push(step);
  }

  get(upid: string): SimTask | undefined {
    return this.tasks.get(upid);
  }

  /** Every task kept, in creation order (GET /nodes/{node}/tasks). */
  all(): IterableIterator<SimTask> {
    return this.tasks.values();
  }

  /** Applies, in end order, every task whose end is at or before now. */
  settle(now: number): void {
    for (;;) {
      const next = this.pending[0];
      if (next === undefined || next.endAt > now) return;
      this.pop();
      next.outcome = next.run(next.endAt);
    }
  }

  clear(): void {
    this.tasks.clear();
    this.pending.length = 0;
  }

  get size(): number {
    return this.tasks.size;
  }

  private trim(): void {
    if (this.tasks.size <= KEPT_TASKS) return;
    for (const [upid, task] of this.tasks) {
      if (this.tasks.size <= KEPT_TASKS) break;
      if (task.outcome !== undefined) this.tasks.delete(upid);
    }
  }

  // A binary min-heap on endAt; ties keep creation order through pid.
  private before(a: SimTask, b: SimTask): boolean {
    return a.endAt < b.endAt || (a.endAt === b.endAt && a.pid < b.pid);
  }

  private push(task: SimTask): void {
    const heap = this.pending;
    heap.push(task);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i] as SimTask, heap[parent] as SimTask)) break;
      [heap[i], heap[parent]] = [heap[parent] as SimTask, heap[i] as SimTask];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.pending;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && this.before(heap[left] as SimTask, heap[smallest] as SimTask)) smallest = left;
      if (right < heap.length && this.before(heap[right] as SimTask, heap[smallest] as SimTask)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest] as SimTask, heap[i] as SimTask];
      i = smallest;
    }
  }
}

/** The `tasks/<upid>/status` answer (F16). */
export function taskStatusOf(task: SimTask): Record<string, unknown> {
  const base: Record<string, unknown> = {
    upid: task.upid,
    node: task.node,
    pid: task.pid,
    pstart: task.pstart,
    starttime: task.starttime,
    type: task.type,
    id: task.id,
    user: task.user,
    tokenid: task.tokenid,
    status: task.outcome === undefined ? 'running' : 'stopped',
  };
  if (task.outcome !== undefined) base.exitstatus = task.outcome.exitstatus;
  return base;
}

/** The log lines as `tasks/<upid>/log` numbers them, ending in `TASK OK` or `TASK ERROR: ...` once done. */
export function taskLogOf(task: SimTask): string[] {
  if (task.outcome === undefined) return task.runningLog;
  const { exitstatus, log } = task.outcome;
  const last = exitstatus === 'OK' ? 'TASK OK' : exitstatus.startsWith('WARNINGS: ') ? `TASK ${exitstatus}` : `TASK ERROR: ${exitstatus}`;
  return [...log, last];
}
