// What the producer library (SPEC 6) works with once it has its config:
// the limits, the queues, the desired-state registry and the door, set up
// on the client's first call from the config it was given or the one the
// service published (config/producer-published.ts). Producer-safe: no
// worker code.
import { limitsFromConfig } from '../job-table/schema.js';
import type { JobLimits } from '../job-table/schema.js';
import type { ProducerConfig } from '../config/producer.js';
import { chooseProducerConfig } from '../config/producer-published.js';
import type { ConfigMismatch } from '../config/producer-published.js';
import { connected } from './connection.js';
import type { RedisClient } from './connection.js';
import { jobDoor } from './enqueue.js';
import type { JobDoor } from './enqueue.js';
import { keys } from '../redis-keys.js';
import { readProducerConfig } from './producer-config-store.js';
import { createQueues } from './queues.js';
import type { Queues } from './queues.js';
import { DesiredStateRegistry } from './registry.js';
import type { ReplicaAcks } from './replica-acks.js';
import type { LeaseTimer } from './lease-timer.js';
import { serviceLeaseTimers, type LeaseTimerFactory } from './lease-timer-source.js';
import type { PoolConfig } from '../pools/types.js';
import { readLastHealth, type LastHealth } from './health-store.js';

export interface ProducerSession {
  limits: JobLimits;
  queues: Queues;
  registry: DesiredStateRegistry;
  door: JobDoor;
  /** The timers of the leases this producer sets, moves and ends (SPEC 31). */
  leaseTimer: LeaseTimer;
  /** The configured warm pools (SPEC 30), as the config chosen says. */
  pools: readonly PoolConfig[];
  /** The last health result (SPEC 19): a create's placement among several clusters and the views' Unknown read it (SPEC 32). */
  lastHealth: () => Promise<LastHealth | undefined>;
}

export interface LazyProducerSession {
  /** The session, set up by the first call that needs it; Redis gone since is a RedisUnavailableError at once. */
  ready(): Promise<ProducerSession>;
  /** Closes the session's queues, if it was set up; the connection is the caller's. */
  close(): Promise<void>;
}

export interface ProducerSessionOptions {
  redis: RedisClient;
  prefix: string;
  /** The config the caller gave, checked; undefined: the published one, or the defaults. */
  given: ProducerConfig | undefined;
  acks: ReplicaAcks;
  onConfigMismatch: (mismatch: ConfigMismatch) => void;
  /** Builds the leases' timers; the service's by default. */
  leaseTimers?: LeaseTimerFactory;
}

export function lazyProducerSession({ redis, prefix, given, acks, onConfigMismatch, leaseTimers = serviceLeaseTimers }: ProducerSessionOptions): LazyProducerSession {
  let session: Promise<ProducerSession> | undefined;
  const start = async (): Promise<ProducerSession> => {
    await connected(redis);
    const published = await readProducerConfig(redis, prefix);
    const config = chooseProducerConfig(given, published, keys.producerConfig(prefix), onConfigMismatch);
    const limits = limitsFromConfig(config);
    const queues = createQueues(redis, prefix, config.jobs);
    const registry = new DesiredStateRegistry(redis, prefix, config.registry.tombstoneSeconds);
    const door = jobDoor(queues, limits, acks);
    const pools = config.pools;
    const lastHealth = (): Promise<LastHealth | undefined> => readLastHealth(redis, prefix);
    return { limits, queues, registry, door, leaseTimer: leaseTimers({ redis, prefix, queues, door, warnSeconds: config.leases.warnSeconds }), pools, lastHealth };
  };
  return {
    // A failed start (Redis down, an unreadable published config) is tried again by the next call.
    async ready() {
      const opened = await (session ??= start().catch((err: unknown) => {
        session = undefined;
        throw err;
      }));
      // Redis gone since: a RedisUnavailableError at once, not a refused command.
      await connected(redis);
      return opened;
    },
    async close() {
      const opened = await session?.catch(() => undefined);
      await opened?.queues.close();
    },
  };
}
