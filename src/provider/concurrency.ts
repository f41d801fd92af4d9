// Runs fn over items with at most `limit` in flight, results in order.
import { throwIfAborted } from './errors.js';

export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>, signal: AbortSignal): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      throwIfAborted(signal);
      const at = next;
      next += 1;
      results[at] = await fn(items[at] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  throwIfAborted(signal);
  return results;
}
