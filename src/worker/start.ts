// A worker process's wiring, the same for `worker` and `all` (SPEC 6):
// the Proxmox client (request budget, metrics, debug lines), the provider
// on it (its seed records and phone-home tokens on the service's Redis,
// its learned wait times on a connection of their own), and the job service.
// With several clusters (SPEC 32) each cluster has its own client, budget,
// daemon slots, learned times, seed records and provider, its keys under
// its clusterKeyPrefix, and one provider routes each job to its cluster.
// Every secret file of the config is read first, for the redactor.
// Closing it closes the workers first, then the clients, so no running job
// loses its Proxmox calls mid-way.
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Provider } from '../provider/types.js';
import type { RedisClient } from '../redis-script.js';
import { clusterKeyPrefix, clustersOf, configForCluster, firstCluster, isMultiCluster, type ClusterConfig } from '../config/clusters.js';
import { clusterRoutedProvider } from '../provider/cluster-router.js';
import { createProvider } from '../provider/provider.js';
import type { LearnedTimesStore } from '../provider/waits/learned-times.js';
import { createBudgetConnection } from '../queue/connection.js';
import { redisLearnedTimes } from '../queue/learned-times-store.js';
import { redisReadySignals } from '../queue/ready-signals.js';
import { redisSeedRecords } from '../queue/seed-records.js';
import { learnSecretFiles } from '../secrets/known-files.js';
import { workerProxmoxApi, type WorkerProxmoxApi } from './proxmox-api.js';
import { startWorkerService, type CloseOutcome, type WorkerService } from './service.js';

/** A learned-times read or sample Redis does not answer within this fails, and the process learns in memory. */
const LEARNED_COMMAND_TIMEOUT_MS = 1_000;

export interface WorkerProcessOptions {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Where Proxmox answers: proxmox.url, or the simulator's address when it is "sim"; with several clusters, a "sim" cluster's when proxmoxUrls names none. */
  proxmoxUrl: string;
  /** SPEC 32: where each cluster of url "sim" answers, by cluster name (the simulators `all` starts); a cluster with a real url needs none. */
  proxmoxUrls?: ReadonlyMap<string, string>;
}

/** One cluster's parts this process builds once: its view of the config, its client and its learned times. */
interface ClusterParts {
  cluster: ClusterConfig;
  view: Config;
  proxmox: WorkerProxmoxApi;
  learnedTimes: LearnedTimesStore;
  logger: Logger;
}

/** Where a cluster's Proxmox answers: the one-cluster form's proxmoxUrl as always; else the named URL, a "sim" cluster's fallback, or its own url. */
function urlOf(options: WorkerProcessOptions, cluster: ClusterConfig): string {
  if (!isMultiCluster(options.config)) return options.proxmoxUrl;
  return options.proxmoxUrls?.get(cluster.name) ?? (cluster.url === 'sim' ? options.proxmoxUrl : cluster.url);
}

/** The job service; its close also closes the Proxmox clients. */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerService> {
  const { config, logger, metrics } = options;
  await learnSecretFiles(config);
  // The learned wait times on their own connection, as the request budget's: a read or a sample Redis does not
  // answer fails within the bound and the process learns in memory, never waits for ever as BullMQ's commands do.
  const learnedRedis = createBudgetConnection(config.redis, LEARNED_COMMAND_TIMEOUT_MS);
  const parts: ClusterParts[] = clustersOf(config).map((cluster) => {
    const view = configForCluster(config, cluster);
    const name = view.proxmox.clusterName;
    const clusterLogger = name === undefined ? logger : logger.child({ cluster: name });
    const keyPrefix = clusterKeyPrefix(config.redis.prefix, name);
    return {
      cluster,
      view,
      proxmox: workerProxmoxApi(view, urlOf(options, cluster), clusterLogger, metrics, keyPrefix),
      learnedTimes: redisLearnedTimes(learnedRedis, keyPrefix),
      logger: clusterLogger,
    };
  });
  // Each cluster's seed records on the service's Redis connection under its own prefix; the phone-home tokens under the service's (the web process reads them).
  const providerOf = (part: ClusterParts, redis: RedisClient, prefix: string): Provider =>
    createProvider({
      api: part.proxmox.api,
      config: part.view,
      logger: part.logger,
      seedRecords: redisSeedRecords(redis, clusterKeyPrefix(prefix, part.view.proxmox.clusterName)),
      learnedTimes: part.learnedTimes,
      readySignals: redisReadySignals(redis, prefix),
    });
  const provider = (redis: RedisClient, prefix: string): Provider => {
    const [only] = parts;
    if (!isMultiCluster(config) && only !== undefined) return providerOf(only, redis, prefix);
    const byCluster = new Map(parts.map((part) => [part.cluster.name, providerOf(part, redis, prefix)] as const));
    return clusterRoutedProvider(byCluster, firstCluster(config).name, clustersOf(config));
  };
  const closeClients = async (): Promise<void> => {
    learnedRedis.disconnect();
    await Promise.all(parts.map((part) => part.proxmox.close()));
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
