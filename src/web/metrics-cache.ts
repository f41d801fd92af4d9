// The Redis figures /metrics shows (BullMQ's queue counts, the stored
// node health) are read at most once per http.metricsCacheSeconds: the
// scrapes meanwhile, at once or one after another, share that read, so
// scraping often or from many Prometheus servers costs Redis nothing more.

/**
 * `read` called at most once per `ttlMs`: calls within it, concurrent or
 * one after another, get the same answer. A failed read is not kept, so
 * the next call reads again. 0 reads on every call.
 */
export function sharedFor<T>(ttlMs: number, read: () => Promise<T>): () => Promise<T> {
  let kept: { answer: Promise<T>; at: number } | undefined;
  return () => {
    const now = Date.now();
    if (kept === undefined || now - kept.at >= ttlMs) {
      const answer = read();
      const entry = { answer, at: now };
      kept = entry;
      answer.catch(() => {
        if (kept === entry) kept = undefined;
      });
    }
    return kept.answer;
  };
}
