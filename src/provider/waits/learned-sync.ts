// A process's learned wait times kept in step with the shared store
// (SPEC 26): each sample goes to the store, whose answer (all
// workers' samples merged) replaces the local value; the whole store is
// read back at most every refreshMs, never per poll. When the store does
// not answer, the process goes on learning in memory, says so once, and
// asks again at the next refresh.
import type { Logger } from '../../log.js';
import type { Learned, LearnedTimesStore } from './learned-times.js';

/** How often the local copy is read back from the store at most. */
export const LEARNED_REFRESH_MS = 15_000;

export interface LearnedSyncOptions {
  store: LearnedTimesStore;
  logger: Logger;
  now: () => Date;
  refreshMs?: number;
}

export class LearnedSync {
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private down = false;
  private readonly refreshMs: number;

  constructor(private readonly options: LearnedSyncOptions) {
    this.refreshMs = options.refreshMs ?? LEARNED_REFRESH_MS;
  }

  /** Reads the store into `into` when the last read is older than refreshMs; resolves when the read in flight (if any) is over. Never rejects. */
  refresh(into: Map<string, Learned>): Promise<void> {
    if (this.reading !== undefined) return this.reading;
    const now = this.options.now().getTime();
    if (now - this.readAt < this.refreshMs) return Promise.resolve();
    this.readAt = now;
    this.reading = this.options.store.read().then(
      (all) => {
        for (const [kind, learned] of all) into.set(kind, learned);
        this.answered();
      },
      (err: unknown) => this.failed(err),
    );
    void this.reading.finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** Sends one sample (the caller already merged it locally); the store's merged answer replaces the local value. */
  add(into: Map<string, Learned>, kind: string, sample: number): void {
    this.send(into, kind, () => this.options.store.add(kind, sample));
  }

  /** Sends one guess (the caller already recorded it locally); the store's answer replaces the local value. */
  guess(into: Map<string, Learned>, kind: string, guessMs: number): void {
    this.send(into, kind, () => this.options.store.guess(kind, guessMs));
  }

  private send(into: Map<string, Learned>, kind: string, merge: () => Promise<Learned>): void {
    // While the store is down, samples stay local; the next refresh finds out whether it is back.
    if (this.down) return;
    merge().then(
      (merged) => {
        into.set(kind, merged);
        this.answered();
      },
      (err: unknown) => this.failed(err),
    );
  }

  private answered(): void {
    if (!this.down) return;
    this.down = false;
    this.options.logger.info({}, 'learned wait times: Redis answers again; sharing them with the other workers');
  }

  private failed(err: unknown): void {
    if (this.down) return;
    this.down = true;
    const reason = err instanceof Error ? err.message : String(err);
    this.options.logger.warn({ reason }, 'learned wait times: Redis does not answer; this process learns in memory until it does');
  }
}
