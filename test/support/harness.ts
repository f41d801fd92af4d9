// One test's world: a config under a fresh prefix, the producer client,
// the provider double, and workers started on demand; close() stops them
// and removes every key of the prefix.
import type { Redis } from 'ioredis';
import { createUncheckedProvisionerClient } from '../../src/client.js';
import type { UncheckedProvisionerClient } from '../../src/client.js';
import type { Config } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createQueues } from '../../src/queue/queues.js';
import type { Queues } from '../../src/queue/queues.js';
import { startWorkerService } from '../../src/worker/service.js';
import type { WorkerService, WorkerServiceOptions } from '../../src/worker/service.js';
import { keyPrefixOf } from '../../src/queue/redis-target.js';
import { RecordingProvider } from './recording-provider.js';
import type { RecordingProviderOptions } from './recording-provider.js';
import { REDIS_URL, deletePrefix, newRedis, testConfig, uniquePrefix } from './redis.js';

export interface Harness {
  /** The prefix keys are under: redis.prefix, or its hash tag {redis.prefix} under `npm run test:cluster`. */
  prefix: string;
  config: Config;
  redis: Redis;
  client: UncheckedProvisionerClient;
  queues: Queues;
  provider: RecordingProvider;
  startWorker(options?: Partial<WorkerServiceOptions>): Promise<WorkerService>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Record<string, unknown>;
  provider?: RecordingProviderOptions;
}

export function createHarness(what: string, options: HarnessOptions = {}): Harness {
  const configured = uniquePrefix(what);
  const config = testConfig(configured, options.config);
  const prefix = keyPrefixOf(configured, config.redis);
  const redis = newRedis();
  const client = createUncheckedProvisionerClient({ redisUrl: REDIS_URL, redis: config.redis, prefix: configured, config });
  const queues = createQueues(redis, prefix);
  const provider = new RecordingProvider(redis, prefix, options.provider);
  const workers: WorkerService[] = [];
  return {
    prefix,
    config,
    redis,
    client,
    queues,
    provider,
    async startWorker(extra = {}) {
      const worker = await startWorkerService({
        config,
        provider: extra.provider ?? provider,
        logger: silentLogger(),
        schedule: false,
        ...extra,
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close(1000)));
      await client.close();
      await queues.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    },
  };
}
