// POST /v1/vms when no node can take a VM (SPEC 19): the web
// process knows node health from the last result the workers stored. By
// default the create is accepted with a warning saying why it will wait;
// with jobs.acceptWhenUnhealthy false it is refused before anything is
// recorded.
import type { Config } from '../config/types.js';
import { failedChecks, nodeCanProvision, type LastHealth } from '../queue/health-store.js';

export type CreateHealthVerdict = { accept: true; warning?: string } | { accept: false; message: string; retryAfterSeconds: number };

export type CreateHealthGate = () => Promise<CreateHealthVerdict>;

/** Why no node can take a VM, in words, or undefined when one can or nothing is known yet. */
export function noNodeReason(last: LastHealth | undefined): string | undefined {
  if (last === undefined || last.nodes.length === 0 || last.nodes.some(nodeCanProvision)) return undefined;
  const nodes = last.nodes.map((node) => `${node.node}: ${failedChecks(node)}`);
  return `no node can take a VM: the last health check (${last.at}) found ${nodes.join('; ')}`;
}

export function createHealthGate(config: Pick<Config, 'jobs' | 'health'>, lastHealth: () => Promise<LastHealth | undefined>): CreateHealthGate {
  return async () => {
    const reason = noNodeReason(await lastHealth());
    if (reason === undefined) return { accept: true };
    if (config.jobs.acceptWhenUnhealthy) return { accept: true, warning: `${reason}; the create waits and retries until a node passes the health check` };
    return {
      accept: false,
      message: `${reason}; creates are refused while no node passes (jobs.acceptWhenUnhealthy is false): nothing was recorded, try again later`,
      retryAfterSeconds: config.health.everySeconds,
    };
  };
}
