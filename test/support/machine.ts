// Timeouts a test has to hand to the code under test (a WAIT's, a
// client's, a lock's TTL), scaled to how loaded the machine is now: the
// time a step takes on a quiet machine, times the 1-minute load average
// per core when that is above 1, at most MAX_FACTOR times, so a test's
// waits stay inside mocha's timeout however high the load reads. For
// timeouts only, never for an assertion on speed (those are bench/'s).
import { availableParallelism, loadavg } from 'node:os';

const MAX_FACTOR = 10;

export function scaledByLoad(quietMs: number): number {
  const [oneMinute = 0] = loadavg();
  const factor = Math.min(MAX_FACTOR, Math.max(1, oneMinute / availableParallelism()));
  return Math.round(quietMs * factor);
}
