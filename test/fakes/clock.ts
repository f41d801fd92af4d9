// A clock for provider tests: sleep advances time at once (after a
// macrotask turn, so other work and aborts can run), so budgets are
// exercised without waiting.
import { TransientError } from '../../src/errors.js';

export class FakeClock {
  private ms: number;
  sleeps = 0;

  constructor(start = Date.parse('2026-11-30T10:00:00Z')) {
    this.ms = start;
  }

  readonly now = (): Date => new Date(this.ms);

  advance(ms: number): void {
    this.ms += ms;
  }

  readonly sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const done = (): void => {
        if (signal.aborted) {
          reject(new TransientError('operation cancelled'));
          return;
        }
        this.sleeps += 1;
        this.ms += ms;
        resolve();
      };
      setImmediate(done);
    });
}
