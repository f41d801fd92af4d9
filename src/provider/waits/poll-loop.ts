// The loop a board runs (SPEC 26): many waiters, one poll for all of them
// whenever the earliest is due. Each waiter keeps its own schedule, its
// budget and its job's AbortSignal: an aborted job leaves the board at
// once, the others go on. The loop runs only while someone waits.
import type { OperationContext } from '../types.js';
import type { Sleep } from './sleep.js';
import { cancelled, classify, transient } from '../errors.js';
import type { PollSchedule } from './expectations.js';

export interface Waiter<T> {
  ctx: OperationContext;
  /** What is awaited, for the budget error. */
  what: string;
  budgetSeconds: number;
  startedAt: number;
  deadline: number;
  schedule: PollSchedule;
  /** When its next poll is due (ms). */
  dueAt: number;
  resolve(value: T): void;
  reject(err: Error): void;
}

export interface LoopClock {
  now: () => Date;
  sleep: Sleep;
}

/** One poll for the waiters on the board; it settles, fails or reschedules each through the loop. */
export type Tick<W> = (waiters: W[], now: number) => Promise<void>;

export class PollLoop<T, W extends Waiter<T>> {
  private readonly waiters = new Map<W, () => void>();
  private running = false;
  private wake: AbortController | undefined;
  private sleepingUntil = Number.POSITIVE_INFINITY;

  constructor(
    private readonly clock: LoopClock,
    private readonly tick: Tick<W>,
    /** A waiter due this soon after a poll counts as due at it, so near-simultaneous waits share one poll. */
    private readonly slackMs = 0,
  ) {}

  /** Whether w's poll is due at now (within the slack). */
  isDue(w: W, now: number): boolean {
    return w.dueAt <= now + this.slackMs;
  }

  get size(): number {
    return this.waiters.size;
  }

  /** Puts w on the board; its promise settles through resolve or reject. */
  join(w: W): void {
    if (w.ctx.signal.aborted) {
      w.reject(cancelled(w.ctx.signal));
      return;
    }
    const onAbort = (): void => this.fail(w, cancelled(w.ctx.signal));
    w.ctx.signal.addEventListener('abort', onAbort, { once: true });
    this.waiters.set(w, () => w.ctx.signal.removeEventListener('abort', onAbort));
    if (w.dueAt < this.sleepingUntil) this.wake?.abort();
    if (!this.running) void this.run();
  }

  has(w: W): boolean {
    return this.waiters.has(w);
  }

  settle(w: W, value: T): void {
    if (this.leave(w)) w.resolve(value);
  }

  fail(w: W, err: Error): void {
    if (this.leave(w)) w.reject(err);
  }

  /** After a poll that did not end w's wait: its next poll, or the end of its budget. */
  again(w: W): void {
    if (!this.waiters.has(w)) return;
    const now = this.clock.now().getTime();
    if (now >= w.deadline) {
      this.fail(w, transient(`gave up waiting for ${w.what} after ${w.budgetSeconds} s`));
      return;
    }
    w.dueAt = Math.min(now + w.schedule.next(), w.deadline);
  }

  private leave(w: W): boolean {
    const detach = this.waiters.get(w);
    if (detach === undefined) return false;
    detach();
    this.waiters.delete(w);
    if (this.waiters.size === 0) this.wake?.abort();
    return true;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      // Waiters that join in the same turn of the event loop share the first poll.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.waiters.size > 0) {
        const now = this.clock.now().getTime();
        const dueAt = Math.min(...[...this.waiters.keys()].map((w) => w.dueAt));
        if (dueAt > now) {
          await this.pause(dueAt - now, dueAt);
          continue;
        }
        try {
          await this.tick([...this.waiters.keys()], now);
        } catch (err) {
          // A tick settles its own failures; anything left is a bug, and no waiter may hang on it.
          const classified = classify(err);
          for (const w of [...this.waiters.keys()]) this.fail(w, classified);
        }
      }
    } finally {
      this.running = false;
    }
  }

  /** Sleeps until dueAt, or less when a waiter joins with an earlier one or the board empties. */
  private async pause(ms: number, dueAt: number): Promise<void> {
    const wake = new AbortController();
    this.wake = wake;
    this.sleepingUntil = dueAt;
    try {
      await this.clock.sleep(ms, wake.signal);
    } catch {
      // Woken early: the loop looks again.
    } finally {
      this.wake = undefined;
      this.sleepingUntil = Number.POSITIVE_INFINITY;
    }
  }
}
