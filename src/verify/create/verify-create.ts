// `verify --create` (SPEC 33). BUILT BY THE verify-create BRANCH: this file
// is its interface only until then.
import type { Config } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type { ProxmoxApi } from '../../proxmox/api.js';
import type { CheckResult } from '../types.js';

/** One step of the create (or the delete) on one node: its time and the Proxmox calls it made, by seam method. */
export interface CreateStepReport {
  step: string;
  ms: number;
  calls: Record<string, number>;
}

export interface NodeCreateReport {
  node: string;
  /** The VM's name (`verify-<random>`) and VMID, once known. */
  name: string;
  vmid?: number;
  address?: string;
  steps: CreateStepReport[];
  /** The create's, the delete's and the leftovers' results, as checks (group `create`). */
  checks: CheckResult[];
}

export interface VerifyCreateOptions {
  config: Config;
  api: ProxmoxApi;
  logger: Logger;
  /** The nodes to create on, one VM each, in turn. */
  nodes: string[];
  /** Aborted on SIGINT: the create stops and what it made is deleted. */
  signal: AbortSignal;
  /** Told when a step starts on a node (the recorder's step, a progress line). */
  onStep?: (step: string, node: string) => void;
}

export function verifyCreate(options: VerifyCreateOptions): Promise<NodeCreateReport[]> {
  return Promise.reject(new Error(`verify --create on ${options.nodes.join(', ')} is not built yet`));
}
