// A worker process's wiring, the same for `worker` and `all` (SPEC 6):
// the Proxmox client (request budget, metrics, debug lines), the provider
// on it (its seed records and phone-home tokens on the service's Redis,
// its learned wait times on a connection of their own), and the job service.
// Every secret file of the config is read first, for the redactor.
// Closing it closes the workers first, then the client, so no running job
// loses its Proxmox calls mid-way.
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Provider } from '../provider/types.js';
import type { RedisClient } from '../redis-script.js';
import { createProvider } from '../provider/provider.js';
import { createBudgetConnection } from '../queue/connection.js';
import { redisLearnedTimes } from '../queue/learned-times-store.js';
import { redisReadySignals } from '../queue/ready-signals.js';
import { redisSeedRecords } from '../queue/seed-records.js';
import { learnSecretFiles } from '../secrets/known-files.js';
import { workerProxmoxApi } from './proxmox-api.js';
import { startWorkerService, type CloseOutcome, type WorkerService } from './service.js';

/** A learned-times read or sample Redis does not answer within this fails, and the process learns in memory. */
const LEARNED_COMMAND_TIMEOUT_MS = 1_000;

export interface WorkerProcessOptions {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Where Proxmox answers: proxmox.url, or the simulator's address when it is "sim". */
  proxmoxUrl: string;
  /** Each cluster whose url is "sim" by name, its simulator's URL (SPEC 32; `all` fills it). */
  proxmoxUrls?: ReadonlyMap<string, string>;
}

/** The job service; its close also closes the Proxmox client. */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerService> {
  const { config, logger, metrics } = options;
  await learnSecretFiles(config);
  const proxmox = workerProxmoxApi(config, options.proxmoxUrl, logger, metrics);
  // The learned wait times on their own connection, as the request budget's: a read or a sample Redis does not
  // answer fails within the bound and the process learns in memory, never waits for ever as BullMQ's commands do.
  const learnedRedis = createBudgetConnection(config.redis, LEARNED_COMMAND_TIMEOUT_MS);
  const learnedTimes = redisLearnedTimes(learnedRedis, config.redis.prefix);
  // Its seed records and phone-home tokens live on the service's Redis connection, under its prefix.
  const provider = (redis: RedisClient, prefix: string): Provider =>
    createProvider({ api: proxmox.api, config, logger, seedRecords: redisSeedRecords(redis, prefix), learnedTimes, readySignals: redisReadySignals(redis, prefix) });
  const closeClients = async (): Promise<void> => {
    learnedRedis.disconnect();
    await proxmox.close();
  };
  let service: WorkerService;
  try {
    service = await startWorkerService({ config, provider, logger, metrics, webhookMetrics: metrics, leaseMetrics: metrics, addressMetrics: metrics, poolMetrics: metrics });
  } catch (err) {
    await closeClients();
    throw err;
  }
  return {
    id: service.id,
    async close(graceMs?: number): Promise<CloseOutcome> {
      try {
        return await service.close(graceMs);
      } finally {
        await closeClients();
      }
    },
  };
}
