// Timeouts a test has to hand to the code under test (a WAIT's, a
// client's), scaled to how loaded the machine is now: the time a step
// takes on a quiet machine, times the 1-minute load average per core when
// that is above 1. For timeouts only, never for an assertion on speed
// (those are bench/'s).
import { availableParallelism, loadavg } from 'node:os';

export function scaledByLoad(quietMs: number): number {
  const [oneMinute = 0] = loadavg();
  return Math.round(quietMs * Math.max(1, oneMinute / availableParallelism()));
}
