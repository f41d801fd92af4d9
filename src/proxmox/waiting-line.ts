// One process's line of calls waiting for a limit shared by every worker
// (the request budget, a node's daemon slots): only the first in line
// asks, and sleeps until the limit may have room (an answer of this
// process that frees room wakes it sooner); the others follow without
// asking. A caller's signal takes it out of the line at once. What an ask
// is and what a caller gets are the limit's (request-budget.ts,
// daemon-slots.ts).
import { WakeableNap } from './wakeable-nap.js';

/** A caller in line, waiting for its grant `G`; `item` is what the limit knows of its call. */
export interface LineWaiter<T, G> {
  item: T;
  /** performance.now() when it joined. */
  started: number;
  /** The limit held it back (it was in line when an ask was refused). */
  held: boolean;
  resolve(grant: G): void;
  reject(reason: unknown): void;
  /** Stops listening to the caller's signal. */
  detach(): void;
}

/** What one ask gave: an offer for the first in line, or how long to sleep before asking again. */
export type AskAnswer<O> = { offer: O } | { waitMs: number };

export interface LineLimit<T, G, O> {
  /** Asks the limit once, for the first in line. */
  ask(): Promise<AskAnswer<O>>;
  /** The first in line, out of the line now, takes the offer: its grant. */
  give(offer: O, first: LineWaiter<T, G>): G;
  /** An offer no caller is left for: every one aborted during the ask. */
  unused(offer: O): void;
  /** A caller whose signal took it out of the line. */
  aborted(waiter: LineWaiter<T, G>): void;
}

export class WaitingLine<T, G, O> {
  private readonly line: LineWaiter<T, G>[] = [];
  /** The first in line sleeps on it; wake() ends the sleep. */
  private readonly sleeper = new WakeableNap();
  private serving = false;
  /** The first in line sleeps after a refused ask. */
  private sleepingNow = false;

  constructor(private readonly limit: LineLimit<T, G, O>) {}

  /** The callers in line, first first. */
  get waiters(): readonly LineWaiter<T, G>[] {
    return this.line;
  }

  /** Whether the first in line sleeps after a refused ask. */
  get sleeping(): boolean {
    return this.sleepingNow;
  }

  /** Resolves with the caller's grant; rejects with the signal's reason as soon as it aborts. */
  wait(item: T, held: boolean, signal: AbortSignal | undefined): Promise<G> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<G>((resolve, reject) => {
      const waiter: LineWaiter<T, G> = { item, started: performance.now(), held, resolve, reject, detach: () => undefined };
      if (signal !== undefined) {
        const onAbort = (): void => {
          const at = this.line.indexOf(waiter);
          if (at >= 0) this.line.splice(at, 1);
          waiter.detach();
          this.limit.aborted(waiter);
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.line.push(waiter);
      void this.serve();
    });
  }

  /** Room may be free now: the first in line asks again at once. */
  wake(): void {
    this.sleeper.wake();
  }

  private async serve(): Promise<void> {
    if (this.serving) return;
    this.serving = true;
    try {
      while (this.line.length > 0) {
        const answer = await this.limit.ask();
        if ('waitMs' in answer) {
          for (const waiter of this.line) waiter.held = true;
          this.sleepingNow = true;
          await this.sleeper.nap(answer.waitMs);
          this.sleepingNow = false;
          continue;
        }
        const first = this.line.shift();
        if (first === undefined) {
          // Every caller aborted during the ask: the offer goes unused.
          this.limit.unused(answer.offer);
          continue;
        }
        first.detach();
        first.resolve(this.limit.give(answer.offer, first));
      }
    } finally {
      this.serving = false;
    }
  }
}
