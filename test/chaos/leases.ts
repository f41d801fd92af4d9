// Leases on half the names of a chaos run (SPEC 31): after each create of
// such a name, a lease of random length (onExpiry delete), now and then
// renewed before it ends; the simulator's VMs sampled while the run goes
// on; the expiries' jobs read at the end; leaseViolations judges. The
// lease is written as lease-core's accept writes it (the record's lease,
// then LeaseTimer.set), so this runs before that branch lands.
import type { Queue } from 'bullmq';
import type { Lease } from '../../src/desired-state.js';
import { parseMark } from '../../src/provider/mark.js';
import type { JobDoor } from '../../src/queue/enqueue.js';
import { createLeaseTimer } from '../../src/queue/lease-timer.js';
import type { RedisClient } from '../../src/redis-script.js';
import { keys } from '../../src/redis-keys.js';
import { leaseViolations, type ExpiryEnd, type LeaseSpan, type SimStateView, type VmSample } from './invariants.js';

export interface ChaosLeasesOptions {
  redis: RedisClient;
  prefix: string;
  door: Pick<JobDoor, 'later'>;
  leaseQueue: Queue;
  random: () => number;
  /** Leases last from a tenth to this many ms. */
  longestMs: number;
}

export interface ChaosLeases {
  /** Half the names (every other one) are leased. */
  leased(name: string): boolean;
  /** A create of a leased name was accepted: its lease, and maybe (awaited, in the name's own sequence) a renewal. */
  created(name: string, generation: number, sleep: (ms: number) => Promise<void>): Promise<void>;
  /** Any request for the name ends its lease's span. */
  intent(name: string): void;
  sample(state: SimStateView): void;
  /** Names whose last lease ran out with no request after it: the expiry deleted them. */
  expiredNames(now: number): Set<string>;
  violations(vmQueue: Queue, boundMs: number): Promise<string[]>;
}

export function chaosLeases({ redis, prefix, door, leaseQueue, random, longestMs }: ChaosLeasesOptions): ChaosLeases {
  const timer = createLeaseTimer({ door, queue: leaseQueue, redis, prefix, warnSeconds: 1 });
  const spans: LeaseSpan[] = [];
  const samples: VmSample[] = [];
  const versions = new Map<string, number>();
  const current = (name: string): LeaseSpan | undefined => spans.findLast((s) => s.name === name && s.until === Infinity);
  const close = (name: string, renewed: boolean): void => {
    const span = current(name);
    if (span) Object.assign(span, { until: Date.now(), renewed });
  };
  const set = async (name: string, generation: number, lengthMs: number): Promise<void> => {
    const version = (versions.get(name) ?? 0) + 1;
    versions.set(name, version);
    const lease: Lease = { expiresAt: new Date(Date.now() + lengthMs).toISOString(), onExpiry: 'delete', version };
    await redis.hset(keys.desired(prefix, name), 'lease', JSON.stringify(lease));
    close(name, true);
    spans.push({ name, version, setAt: Date.now(), expiresAt: Date.parse(lease.expiresAt), until: Infinity, renewed: false });
    await timer.set(name, generation, lease);
  };
  const length = (): number => longestMs * (0.1 + 0.9 * random());
  return {
    leased: (name) => Number(/\d+$/.exec(name)?.[0] ?? 1) % 2 === 0,
    async created(name, generation, sleep) {
      const first = length();
      await set(name, generation, first);
      if (random() < 0.5) return;
      await sleep(first * random() * 0.8);
      // Renewed only while the lease is still in force: no request came, it did not run out.
      const span = current(name);
      if (span !== undefined && span.expiresAt > Date.now() + 200) await set(name, generation, length());
    },
    intent: (name) => close(name, false),
    sample(state) {
      const held = new Set(state.vms.filter((vm) => parseMark(vm.config.description) !== undefined && vm.config.name !== undefined).map((vm) => vm.config.name ?? ''));
      samples.push({ at: Date.now(), held });
    },
    expiredNames(now) {
      return new Set(spans.filter((s) => s.until === Infinity && s.expiresAt < now).map((s) => s.name));
    },
    async violations(vmQueue, boundMs) {
      const ends: ExpiryEnd[] = [];
      for (const job of await vmQueue.getJobs(['completed'])) {
        const data = job.data as { name?: string; expiredAt?: string; leaseVersion?: number };
        const result = job.returnvalue as { superseded?: boolean } | undefined;
        if (data.expiredAt === undefined || data.name === undefined || result?.superseded === true) continue;
        ends.push({ jobId: job.id ?? '', name: data.name, leaseVersion: data.leaseVersion ?? 0, expiredAt: Date.parse(data.expiredAt), recordedAt: job.timestamp });
      }
      return leaseViolations(spans, samples, ends, boundMs);
    },
  };
}
