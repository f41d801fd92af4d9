// The job layer's per-name locks (src/queue/name-lock.ts, SPEC 3) as the
// sweep's NameLocks: the same keys, so a sweep and a job never both hold a
// name.
import type { NameLocks as QueueNameLocks } from '../queue/name-lock.js';
import type { NameLocks } from './ports.js';

export function nameLocksAdapter(locks: QueueNameLocks, ttlMs: number): NameLocks {
  return {
    isHeld: (name) => locks.isHeld(name),
    tryWithLock: (name, fn) => locks.tryHold(name, ttlMs, fn),
  };
}
