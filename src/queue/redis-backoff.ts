// How often a lost Redis connection is tried again (SPEC 24): doubling
// from one second up to ten, with a little jitter so many processes do
// not knock at once. Ten seconds bounds how long a process stays down
// after Redis is back.
export const REDIS_RETRY_FIRST_MS = 1_000;
export const REDIS_RETRY_MAX_MS = 10_000;

/** Delay before reconnect attempt `times` (1 for the first), within +-10 %. */
export function redisRetryDelayMs(times: number, random: () => number = Math.random): number {
  const base = Math.min(REDIS_RETRY_FIRST_MS * 2 ** Math.max(0, times - 1), REDIS_RETRY_MAX_MS);
  return Math.round(base * (0.9 + 0.2 * random()));
}
