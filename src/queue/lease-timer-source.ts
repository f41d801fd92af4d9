// Where the producer's accept finds the timers of leases (SPEC 31): the
// LeaseTimer (lease-timer.ts) is built once per producer session from its
// queues and Redis. Producer-safe: no worker code.
import type { RedisClient } from '../redis-script.js';
import type { LeaseTimer } from './lease-timer.js';
import type { Queues } from './queues.js';

/** What a LeaseTimer may be built from. */
export interface LeaseTimerSource {
  redis: RedisClient;
  prefix: string;
  queues: Queues;
}

export type LeaseTimerFactory = (source: LeaseTimerSource) => LeaseTimer;

/**
 * The service's timers. Until the delayed expiry jobs are wired in here
 * (the lease-expiry branch), setting and clearing do nothing: a lease is
 * still recorded and shown, and the sweep's backstop finds it past due.
 */
export const serviceLeaseTimers: LeaseTimerFactory = () => ({
  set: () => Promise.resolve(),
  clear: () => Promise.resolve(),
});
