// Where the producer's accept finds the timers of leases (SPEC 31): the
// LeaseTimer (lease-timer.ts) is built once per producer session from its
// queues and Redis. Producer-safe: no worker code.
import type { RedisClient } from '../redis-script.js';
import type { JobDoor } from './enqueue.js';
import { createLeaseTimer, type LeaseTimer } from './lease-timer.js';
import type { Queues } from './queues.js';

/** What a LeaseTimer may be built from. */
export interface LeaseTimerSource {
  redis: RedisClient;
  prefix: string;
  queues: Queues;
  /** The session's door: the timers are delayed jobs added through it. */
  door: Pick<JobDoor, 'later'>;
  /** leases.warnSeconds: the vm.expiring warning's time before the expiry. */
  warnSeconds: number;
}

export type LeaseTimerFactory = (source: LeaseTimerSource) => LeaseTimer;

/** The service's timers: the delayed expiry and warning jobs on the leases queue (lease-timer.ts). */
export const serviceLeaseTimers: LeaseTimerFactory = ({ redis, prefix, queues, door, warnSeconds }) =>
  createLeaseTimer({ door, queue: queues.leases, redis, prefix, warnSeconds });
