// A worker process for the crash and shutdown tests: the real worker
// service and signal handling over the Redis-backed provider double, so
// what it did survives a SIGKILL. Configured by the CHILD_WORKER variable
// (JSON: prefix as configured, redis.prefix; stepMs, config overrides, realProvider); prints "ready"
// once started. With realProvider the worker runs the real provider
// against config's proxmox.url (a simulator) instead of the double, its
// seed records on the service's Redis as the worker's own.
import { silentLogger } from '../../src/log.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { createProvider } from '../../src/provider/provider.js';
import type { Provider } from '../../src/provider/types.js';
import { redisSeedRecords } from '../../src/queue/seed-records.js';
import type { RedisClient } from '../../src/redis-script.js';
import { handleShutdownSignals } from '../../src/worker/shutdown.js';
import { startWorkerService } from '../../src/worker/service.js';
import { RecordingProvider } from './recording-provider.js';
import { keyPrefix, newRedis, testConfig } from './redis.js';

interface ChildOptions {
  prefix: string;
  stepMs: number;
  config?: Record<string, unknown>;
  realProvider?: boolean;
}

const options = JSON.parse(process.env.CHILD_WORKER ?? '{}') as ChildOptions;
const config = testConfig(options.prefix, options.config);
const redis = newRedis();
const logger = silentLogger();
const provider = options.realProvider
  ? (on: RedisClient, prefix: string): Provider =>
      createProvider({ api: createHttpApi({ baseUrl: config.proxmox.url, tokenFile: config.proxmox.tokenFile }), config, logger, seedRecords: redisSeedRecords(on, prefix) })
  : new RecordingProvider(redis, keyPrefix(options.prefix), { stepMs: options.stepMs });
const service = await startWorkerService({ config, provider, logger, schedule: false, id: `child-${process.pid}` });
handleShutdownSignals(service, logger, {
  graceMs: config.jobs.shutdownGraceSeconds * 1000,
  alsoClose: async () => {
    await redis.quit();
  },
});
process.stdout.write('ready\n');
