// The worker's side of node health (SPEC 19): each result is
// stored for /readyz and the API and told in the log when it changed
// (health-report.ts); at start the worker checks the nodes itself, with
// its own token file and its own way to Proxmox, and says what it found.
import type { Logger } from '../log.js';
import type { NodeHealth, Provider } from '../provider/types.js';
import type { RedisClient } from '../queue/connection.js';
import { readLastHealth, writeLastHealth } from '../queue/health-store.js';
import { reportHealth } from './health-report.js';

export interface HealthWatch {
  /** Stores a health job's result, logging what changed since the stored one. */
  save(nodes: NodeHealth[]): Promise<void>;
  /** The check at start: stores it and logs every node that fails, whatever was stored. */
  checkAtStart(signal: AbortSignal): Promise<void>;
}

export function createHealthWatch(redis: RedisClient, prefix: string, provider: Pick<Provider, 'health'>, logger: Logger): HealthWatch {
  return {
    async save(nodes) {
      // A failed read only costs the comparison: the result is still stored.
      const before = await readLastHealth(redis, prefix).catch(() => undefined);
      await writeLastHealth(redis, prefix, nodes);
      reportHealth(logger, nodes, before?.nodes);
    },
    async checkAtStart(signal) {
      const nodes = await provider.health({ signal, logger });
      reportHealth(logger, nodes, undefined);
      if (nodes.every((node) => node.ok)) logger.info({ nodes: nodes.map((n) => n.node) }, 'health check at start: every node passes');
      await writeLastHealth(redis, prefix, nodes);
    },
  };
}
