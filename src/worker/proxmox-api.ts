// The Proxmox API client a worker process uses, built from the config:
// got (SPEC 18), the debug line and metrics of each call (SPEC 9), the
// request budget shared by every worker (SPEC 26), and outermost the
// pvedaemon slots per node (SPEC 28), so a call waiting for its node's
// slot holds no place in the budget, and the call's own latency leaves
// both waits out. With several clusters (SPEC 32) each has its own client,
// budget and slots: the config is the cluster's view, the key prefix its own.
import type { Logger } from '../log.js';
import type { Config } from '../config/index.js';
import type { Metrics } from '../metrics.js';
import { createBudgetConnection } from '../queue/connection.js';
import { unreachableReason } from '../queue/redis-failure.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import type { ExchangeListener } from '../proxmox/exchange.js';
import { budgetApi } from '../proxmox/budgeted-api.js';
import { daemonSlotApi } from '../proxmox/daemon-slotted-api.js';
import { createDaemonSlots } from '../proxmox/daemon-slots.js';
import { createHttpApi } from '../proxmox/http-api.js';
import { routeByNode } from '../proxmox/node-routed-api.js';
import { observeApi } from '../proxmox/observed-api.js';
import { createRequestBudget, type RequestBudget } from '../proxmox/request-budget.js';

/** proxmox.url's client, and one per node with its own apiUrl (SPEC 28), each with the same token, CA file and timeouts. */
export function proxmoxApiFromConfig(config: Config, baseUrl: string, logger?: Logger, onExchange?: ExchangeListener): ProxmoxApi {
  const client = (url: string): ProxmoxApi =>
    createHttpApi({
      baseUrl: url,
      tokenFile: config.proxmox.tokenFile,
      caFile: config.proxmox.caFile,
      ...(logger === undefined ? {} : { logger }),
      timeouts: { connectMs: config.budgets.connectMs, responseMs: config.budgets.responseMs },
      ...(onExchange === undefined ? {} : { onExchange }),
    });
  const byNode = new Map(config.proxmox.nodes.flatMap((node) => (node.apiUrl === undefined ? [] : [[node.name, client(node.apiUrl)] as const])));
  return routeByNode(client(baseUrl), byNode);
}

export interface WorkerProxmoxApi {
  api: ProxmoxApi;
  /** Closes the budget's and the slots' Redis connections. */
  close(): Promise<void>;
}

/** A budget or slot call that Redis does not answer within this fails open (request-budget.ts, daemon-slots.ts). */
const BUDGET_COMMAND_TIMEOUT_MS = 1_000;

/**
 * `keyPrefix`: where the budget's and the slots' Redis keys live, each
 * under the hash tag of it (redis-keys.ts): redis.prefix, or a cluster's
 * clusterKeyPrefix (SPEC 32), so each cluster has a budget and slots of its own.
 */
export function workerProxmoxApi(config: Config, baseUrl: string, logger: Logger, metrics: Metrics, keyPrefix: string = config.redis.prefix): WorkerProxmoxApi {
  let api = observeApi(proxmoxApiFromConfig(config, baseUrl, logger), logger, metrics);
  const closers: (() => Promise<void>)[] = [];
  const { maxRequestsPerSecond, requestBurst, daemonSlotsPerNode, daemonSlotWorstCaseScale } = config.proxmox;
  if (maxRequestsPerSecond > 0) {
    // The longest a call can be on its way: DNS, TCP and TLS, then the answer's headers.
    const inFlightMs = 3 * config.budgets.connectMs + config.budgets.responseMs;
    // One budget per address (SPEC 28): proxmox.url's, and each node's own apiUrl's, whose calls enter that node's pveproxy.
    const budgetFor = (scope: string | undefined): RequestBudget => {
      // Its own connection: the worker's BullMQ one queues commands for ever while Redis is down.
      const redis = createBudgetConnection(config.redis, BUDGET_COMMAND_TIMEOUT_MS);
      // The budget's keys are already under the hash tag {redis.prefix} (budget-script.ts), the one a Cluster's keys share.
      const budget = createRequestBudget({ redis, prefix: keyPrefix, ...(scope === undefined ? {} : { scope }), maxRequestsPerSecond, burst: requestBurst, inFlightMs, logger, metrics, redisReason: unreachableReason });
      closers.push(() => budget.close());
      return budget;
    };
    const main = budgetFor(undefined);
    const byNode = new Map(config.proxmox.nodes.flatMap((node) => (node.apiUrl === undefined ? [] : [[node.name, budgetFor(`node:${node.name}`)] as const])));
    api = budgetApi(api, (node) => (node === undefined ? main : (byNode.get(node) ?? main)));
  }
  if (daemonSlotsPerNode > 0) {
    // Its own connection too, its keys under the same hash tag (daemon-slot-script.ts).
    const redis = createBudgetConnection(config.redis, BUDGET_COMMAND_TIMEOUT_MS);
    const slots = createDaemonSlots({ redis, prefix: keyPrefix, slotsPerNode: daemonSlotsPerNode, logger, metrics, redisReason: unreachableReason });
    // The address each node's calls go to, as proxmoxApiFromConfig routes them: uploads through one address enter one node.
    const apiUrls = new Map(config.proxmox.nodes.map((node) => [node.name, node.apiUrl ?? baseUrl]));
    const entry = { addressOf: (node: string) => apiUrls.get(node) ?? baseUrl, nodes: config.proxmox.nodes.map((node) => node.name), logger };
    api = daemonSlotApi(api, slots, daemonSlotWorstCaseScale, entry);
    closers.push(() => slots.close());
  }
  return { api, close: async () => void (await Promise.all(closers.map((close) => close()))) };
}
