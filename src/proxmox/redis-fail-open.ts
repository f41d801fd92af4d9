// The Redis behind a limit shared by every worker (the request budget,
// the daemon slots) did not answer: the process goes by its own bound for
// `retryMs` before it asks Redis again, and says so at most once every
// `warnEveryMs` (fail open, but bounded; docs/decisions.md), the reason
// in words (SPEC 24) when the caller gives a `reason` for Redis's errors
// (the worker passes queue/redis-failure.ts's), not ioredis's text.

export interface RedisFailOpen {
  /** Whether Redis is to be asked now (not within retryMs of its last failure). */
  askRedis(): boolean;
  /** Redis did not answer: go by the local bound for retryMs, warning if none was said within warnEveryMs. */
  failed(err: unknown): void;
}

export function redisFailOpen(retryMs: number, warnEveryMs: number, warn: (message: string) => void, reason?: (err: unknown) => string | undefined): RedisFailOpen {
  let askRedisAt = 0;
  let warnedAt = Number.NEGATIVE_INFINITY;
  return {
    askRedis: () => Date.now() >= askRedisAt,
    failed: (err) => {
      askRedisAt = Date.now() + retryMs;
      if (Date.now() - warnedAt < warnEveryMs) return;
      warnedAt = Date.now();
      warn(reason?.(err) ?? (err instanceof Error ? err.message : String(err)));
    },
  };
}
