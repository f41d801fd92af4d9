// How the provider waits between polls: a sleep the job's signal ends
// at once. Tests inject their own, so polling never really waits.
import { cancelled } from '../errors.js';

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** The default sleep: a timer the signal cancels. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(cancelled(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
