// Leases on half the names of a chaos run (SPEC 31), through the API a
// backend uses: the create carries a ttlSeconds of random length (onExpiry
// delete, the default), and now and then the lease is renewed with
// renewLease before it ends; the simulator's VMs sampled while the run
// goes on; the expiries' jobs read at the end; leaseViolations judges.
import type { Queue } from 'bullmq';
import type { Lease } from '../../src/desired-state.js';
import { NameNotFoundError, type ProvisionerClient } from '../../src/client.js';
import { parseMark } from '../../src/provider/mark.js';
import type { RedisClient } from '../../src/redis-script.js';
import { keys } from '../../src/redis-keys.js';
import { leaseViolations, type ExpiryEnd, type LeaseSpan, type SimStateView, type VmSample } from './invariants.js';

export interface ChaosLeasesOptions {
  /** Read only: the lease's version as the accept recorded it. */
  redis: RedisClient;
  /** The registry's prefix. */
  prefix: string;
  random: () => number;
  /** Leases last from a tenth to this many ms (whole seconds, at least 1). */
  longestMs: number;
}

export interface ChaosLeases {
  /** Half the names (every other one) are leased. */
  leased(name: string): boolean;
  /** The ttlSeconds a create of this name carries: a random length for a leased name, 0 (none) for the others. */
  ttlFor(name: string): number;
  /** A create of a leased name was accepted: its lease's span, and maybe (awaited, in the name's own sequence) a renewal. */
  created(name: string, producer: ProvisionerClient, sleep: (ms: number) => Promise<void>): Promise<void>;
  /** Any request for the name ends its lease's span. */
  intent(name: string): void;
  sample(state: SimStateView): void;
  /** Names whose last lease ran out with no request after it: the expiry deleted them. */
  expiredNames(now: number): Set<string>;
  violations(vmQueue: Queue, boundMs: number): Promise<string[]>;
}

export function chaosLeases({ redis, prefix, random, longestMs }: ChaosLeasesOptions): ChaosLeases {
  const spans: LeaseSpan[] = [];
  const samples: VmSample[] = [];
  const current = (name: string): LeaseSpan | undefined => spans.findLast((s) => s.name === name && s.until === Infinity);
  /** Ends every open span of the name: `created` retried by persist (a Redis error after its read) may have opened one twice. */
  const close = (name: string, renewed: boolean): void => {
    for (const span of spans) if (span.name === name && span.until === Infinity) Object.assign(span, { until: Date.now(), renewed });
  };
  /** A new lease for the name: it replaces whatever lease was in force. */
  const open = (name: string, lease: Pick<Lease, 'expiresAt' | 'version'>): void => {
    close(name, true);
    spans.push({ name, version: lease.version, setAt: Date.now(), expiresAt: Date.parse(lease.expiresAt), until: Infinity, renewed: false });
  };
  const seconds = (): number => Math.max(1, Math.round((longestMs * (0.1 + 0.9 * random())) / 1000));
  return {
    leased: (name) => Number(/\d+$/.exec(name)?.[0] ?? 1) % 2 === 0,
    ttlFor(name) {
      return this.leased(name) ? seconds() : 0;
    },
    async created(name, producer, sleep) {
      const raw = await redis.hget(keys.desired(prefix, name), 'lease');
      if (raw === null) return;
      const lease = JSON.parse(raw) as Lease;
      open(name, lease);
      if (random() < 0.5) return;
      await sleep((Date.parse(lease.expiresAt) - Date.now()) * random() * 0.8);
      // Renewed only while the lease is still in force: no request came, it did not run out.
      const span = current(name);
      if (span === undefined || span.expiresAt <= Date.now() + 200) return;
      let renewed;
      try {
        renewed = await producer.renewLease(name, { ttlSeconds: seconds() });
      } catch (err) {
        // Its expiry ran first (the 200 ms margin is the producer's, not the worker's): nothing renewed.
        if (err instanceof NameNotFoundError) return;
        throw err;
      }
      close(name, true);
      open(name, renewed);
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
