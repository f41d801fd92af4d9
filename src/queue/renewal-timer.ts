// One timer for every lock a NameLocks holds (SPEC 3, 21). A lock is
// renewed every third of its TTL; a job that ends before its first
// renewal is due (all of them with a provider that does nothing, most
// polls of a real one) then costs a Set entry, not a setInterval made and
// cleared. The timer is armed for the earliest renewal due, so each lock
// is renewed at its own thirds. Times are on the monotonic clock, as
// setInterval's are, so a step of the wall clock delays no renewal.

export interface Renewing {
  /** When the next renewal is due (on the timer's clock). */
  at: number;
  readonly everyMs: number;
  readonly renew: () => void;
}

export class RenewalTimer {
  private readonly held = new Set<Renewing>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Calls `renew` every `everyMs` from now until the entry is deleted. */
  add(everyMs: number, renew: () => void): Renewing {
    const entry: Renewing = { at: this.now() + everyMs, everyMs, renew };
    this.held.add(entry);
    // Past its time and not fired (a busy loop, or a timer of a clock that was
    // replaced): armed again for what is due, never later than it was.
    if (this.timer === undefined || entry.at < this.timerAt || this.now() > this.timerAt) this.arm(Math.min(entry.at, this.timerAt));
    return entry;
  }

  delete(entry: Renewing): void {
    this.held.delete(entry);
    if (this.held.size === 0) this.disarm();
  }

  private arm(at: number): void {
    this.disarm();
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - this.now()));
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.held) {
      if (entry.at <= now) {
        const following = entry.at + entry.everyMs;
        entry.at = following > now ? following : now + entry.everyMs; // late by a whole period: as setInterval, from now
        entry.renew();
      }
      next = Math.min(next, entry.at);
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }
}
