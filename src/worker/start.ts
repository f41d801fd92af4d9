// A worker process's wiring, the same for `worker` and `all` (SPEC 6):
// the Proxmox client (request budget, metrics, debug lines), the provider
// on it (its seed records on the service's Redis), and the job service.
// Every secret file of the config is read first, for the redactor.
// Closing it closes the workers first, then the client, so no running job
// loses its Proxmox calls mid-way.
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Provider } from '../provider/types.js';
import type { RedisClient } from '../redis-script.js';
import { createProvider } from '../provider/provider.js';
import { redisSeedRecords } from '../queue/seed-records.js';
import { learnSecretFiles } from '../secrets/known-files.js';
import { workerProxmoxApi } from './proxmox-api.js';
import { startWorkerService, type CloseOutcome, type WorkerService } from './service.js';

export interface WorkerProcessOptions {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Where Proxmox answers: proxmox.url, or the simulator's address when it is "sim". */
  proxmoxUrl: string;
}

/** The job service; its close also closes the Proxmox client. */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerService> {
  const { config, logger, metrics } = options;
  await learnSecretFiles(config);
  const proxmox = workerProxmoxApi(config, options.proxmoxUrl, logger, metrics);
  // Its seed records live on the service's Redis connection, under its prefix.
  const provider = (redis: RedisClient, prefix: string): Provider => createProvider({ api: proxmox.api, config, logger, seedRecords: redisSeedRecords(redis, prefix) });
  let service: WorkerService;
  try {
    service = await startWorkerService({ config, provider, logger, metrics, webhookMetrics: metrics });
  } catch (err) {
    await proxmox.close();
    throw err;
  }
  return {
    id: service.id,
    async close(graceMs?: number): Promise<CloseOutcome> {
      try {
        return await service.close(graceMs);
      } finally {
        await proxmox.close();
      }
    },
  };
}
