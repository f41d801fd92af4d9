// One daemon's workers on one node (pveproxy or pvedaemon, SPEC 28): a
// worker serves one call at a time and the rest wait in arrival order.
// The real host is worse: a connection stays with the worker that
// accepted it, so calls queue behind that worker's (head-of-line), not
// for the first free one (pve-http-server AnyEvent.pm 1942, audit 4.1).
//
// Time is kept on a virtual schedule: a worker's next call starts when its
// last one ended on that schedule, not when the timer that ended it fired,
// so costs below a timer's 1 ms resolution still add up (N calls of C ms
// on one worker span N*C ms), and a loaded machine's timer lag does not
// lengthen the modelled waits.
//
// A call may come with a deadline (pveproxy's 30 s proxy timeout, 596,
// daemons.ts): one still waiting for a worker at its deadline is taken out
// of the queue and never runs; one that got a worker in time but whose
// cost ends past the deadline is answered at the deadline while its worker
// stays busy until the end (the handler runs on; nobody reads its answer).

/** A call's deadline came before a worker was free for it (the caller answers 596). */
export class WaitTimedOut extends Error {
  override readonly name = 'WaitTimedOut';
}

export interface WorkerPoolOptions {
  /** Workers; 0: not modelled, any number at once, nothing counted. */
  workers: number;
  /** The timeline's bucket (ms): each holds the most workers busy in it. */
  bucketMs: number;
  /** Buckets kept; older ones are dropped. */
  keptBuckets: number;
  /** Clock in ms (fractions allowed). */
  now: () => number;
  /** How a worker is held until its call's end; tests inject one that returns at once. */
  sleep: (ms: number) => Promise<void>;
}

/** What GET /_sim/capacity shows of one daemon of one node. Times are wall ms (after timeScale). */
export interface PoolCounters {
  workers: number;
  inProgress: number;
  waiting: number;
  peakInProgress: number;
  peakWaiting: number;
  served: number;
  /** Worker time the served calls held, in seconds. */
  busyWorkerSeconds: number;
  longestWaitMs: number;
  meanWaitMs: number;
  /** Calls answered 596 here: their deadline came while they waited (never run) or while they ran (counted in `served` too). */
  timedOut596: number;
  /** The most workers busy in each bucket, oldest first; `at` is the bucket's start on the clock. */
  timeline: { bucketMs: number; buckets: { at: number; busy: number }[] };
}

/** When a call comes to the pool, on the virtual schedule, and by when it must have been answered. */
export interface Arrival {
  /** The virtual time it arrives (the end of its previous leg); the clock's now by default. */
  at?: number;
  /** No worker free before this virtual time: WaitTimedOut; an end past it: answered late. Infinity by default. */
  deadline?: number;
}

/** A worker held by one call. */
export interface Lease {
  /** When the call started on the virtual schedule. */
  readonly start: number;
  /**
   * Holds the worker until `start + costMs`, then hands it on. With the
   * end past the call's deadline it resolves at the deadline, `timedOut`,
   * and the worker stays held until the end all the same.
   */
  finish(costMs: number): Promise<{ timedOut: boolean }>;
}

interface Waiter {
  arrivedAt: number;
  deadline: number;
  take(freeAt: number): void;
  fail(): void;
}

interface Totals {
  peakInProgress: number;
  peakWaiting: number;
  served: number;
  busyMs: number;
  waitedMs: number;
  longestWaitMs: number;
  timedOut596: number;
}

const zeroTotals = (): Totals => ({ peakInProgress: 0, peakWaiting: 0, served: 0, busyMs: 0, waitedMs: 0, longestWaitMs: 0, timedOut596: 0 });

export class WorkerPool {
  /** Free workers, each as the virtual time its last call ended. */
  private readonly free: number[];
  private readonly queue: Waiter[] = [];
  /** Virtual ends of the calls now sleeping out their cost, with how many end there. */
  private readonly pendingEnds = new Map<number, number>();
  /** Calls holding a worker whose end is not known yet (their work runs). */
  private running = 0;
  private inProgress = 0;
  private totals = zeroTotals();
  private readonly timeline: BusyTimeline;

  constructor(private readonly options: WorkerPoolOptions) {
    this.free = Array.from({ length: Math.max(0, options.workers) }, () => -Infinity);
    this.timeline = new BusyTimeline(options.bucketMs, options.keptBuckets);
  }

  get modelled(): boolean {
    return this.options.workers > 0;
  }

  /**
   * Waits for a worker (WaitTimedOut when none is free before the
   * deadline) and holds it from then on until the lease is finished.
   * Not modelled: at once, uncounted, never late.
   */
  async acquire(arrival: Arrival = {}): Promise<Lease> {
    const arrivedAt = arrival.at ?? this.options.now();
    const deadline = arrival.deadline ?? Infinity;
    if (!this.modelled) return { start: arrivedAt, finish: () => Promise.resolve({ timedOut: false }) };
    const freeAt = await this.take(arrivedAt, deadline);
    const start = Math.max(arrivedAt, freeAt);
    const waited = start - arrivedAt;
    this.totals.waitedMs += waited;
    this.totals.longestWaitMs = Math.max(this.totals.longestWaitMs, waited);
    this.inProgress += 1;
    this.running += 1;
    this.totals.peakInProgress = Math.max(this.totals.peakInProgress, this.inProgress);
    this.timeline.change(start, this.inProgress);
    let finished = false;
    return {
      start,
      finish: async (costMs: number) => {
        if (finished) return { timedOut: false };
        finished = true;
        const end = start + costMs;
        this.running -= 1;
        this.totals.served += 1;
        this.totals.busyMs += costMs;
        this.pendingEnds.set(end, (this.pendingEnds.get(end) ?? 0) + 1);
        const held = this.holdUntil(end);
        if (end < deadline) {
          await held;
          return { timedOut: false };
        }
        // Answered at the deadline; the worker stays busy until the end (`held` cannot fail).
        this.totals.timedOut596 += 1;
        await this.sleepUntil(deadline);
        return { timedOut: true };
      },
    };
  }

  counters(): PoolCounters {
    const t = this.totals;
    const served = t.served;
    return {
      workers: this.options.workers,
      inProgress: this.inProgress,
      waiting: this.queue.length,
      peakInProgress: t.peakInProgress,
      peakWaiting: t.peakWaiting,
      served,
      busyWorkerSeconds: t.busyMs / 1000,
      longestWaitMs: t.longestWaitMs,
      meanWaitMs: served === 0 ? 0 : t.waitedMs / served,
      timedOut596: t.timedOut596,
      timeline: { bucketMs: this.options.bucketMs, buckets: this.timeline.buckets(this.options.now(), this.inProgress) },
    };
  }

  /** Clears the totals, peaks and timeline (DELETE /_sim/capacity); calls in flight go on. */
  resetCounters(): void {
    this.totals = { ...zeroTotals(), peakInProgress: this.inProgress, peakWaiting: this.queue.length };
    this.timeline.clear();
  }

  private async sleepUntil(at: number): Promise<void> {
    const left = at - this.options.now();
    if (left > 0) await this.options.sleep(left);
  }

  /** Sleeps out a call's cost, then hands its worker on at its virtual end. */
  private async holdUntil(end: number): Promise<void> {
    await this.sleepUntil(end);
    const left = (this.pendingEnds.get(end) ?? 1) - 1;
    if (left > 0) this.pendingEnds.set(end, left);
    else this.pendingEnds.delete(end);
    this.inProgress -= 1;
    this.timeline.change(end, this.inProgress);
    this.release(end);
  }

  private timedOut(): WaitTimedOut {
    this.totals.timedOut596 += 1;
    return new WaitTimedOut('no worker was free before the deadline');
  }

  private take(arrivedAt: number, deadline: number): Promise<number> {
    if (arrivedAt >= deadline) return Promise.reject(this.timedOut());
    const slot = this.free.pop();
    if (slot !== undefined) {
      if (slot < deadline) return Promise.resolve(slot);
      this.free.push(slot);
      return Promise.reject(this.timedOut());
    }
    return new Promise<number>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        arrivedAt,
        deadline,
        take: (freeAt) => {
          clearTimeout(timer);
          resolve(freeAt);
        },
        fail: () => {
          clearTimeout(timer);
          reject(this.timedOut());
        },
      };
      this.queue.push(waiter);
      this.totals.peakWaiting = Math.max(this.totals.peakWaiting, this.queue.length);
      if (Number.isFinite(deadline)) {
        timer = setTimeout(() => this.expire(waiter), Math.max(0, deadline - this.options.now()));
        timer.unref();
      }
    });
  }

  /**
   * The wall-clock deadline passed. The waiter has truly waited that long
   * only if no worker frees before its deadline on the virtual schedule:
   * none still running its work (end unknown) and none sleeping out a cost
   * that ended earlier (timer lag). Otherwise the hand-over decides.
   */
  private expire(waiter: Waiter): void {
    if (this.running > 0 || [...this.pendingEnds.keys()].some((end) => end < waiter.deadline)) return;
    const at = this.queue.indexOf(waiter);
    if (at < 0) return;
    this.queue.splice(at, 1);
    waiter.fail();
  }

  /** The worker goes to the first waiter whose deadline it beats, or back to the free ones. */
  private release(end: number): void {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
      if (end < next.deadline) return next.take(end);
      next.fail();
    }
    this.free.push(end);
  }
}

/** The most workers busy per bucket of time, the last `kept` buckets. */
class BusyTimeline {
  private readonly kept: { index: number; busy: number }[] = [];
  private level = 0;

  constructor(
    private readonly bucketMs = 1,
    private readonly keep = 0,
  ) {}

  change(at: number, level: number): void {
    this.advance(at);
    const last = this.kept[this.kept.length - 1];
    if (last !== undefined) last.busy = Math.max(last.busy, level);
    this.level = level;
  }

  buckets(now: number, level: number): { at: number; busy: number }[] {
    this.change(now, level);
    return this.kept.map((b) => ({ at: b.index * this.bucketMs, busy: b.busy }));
  }

  clear(): void {
    this.kept.length = 0;
  }

  /** Opens buckets up to `at`'s, each starting at the level then current; a time in the past counts in the last bucket. */
  private advance(at: number): void {
    if (this.keep <= 0 || !(this.bucketMs > 0)) return;
    const index = Math.floor(at / this.bucketMs);
    const last = this.kept[this.kept.length - 1];
    if (last !== undefined && index <= last.index) return;
    const from = last === undefined ? index : Math.max(last.index + 1, index - this.keep + 1);
    for (let i = from; i <= index; i += 1) this.kept.push({ index: i, busy: this.level });
    if (this.kept.length > this.keep) this.kept.splice(0, this.kept.length - this.keep);
  }
}
