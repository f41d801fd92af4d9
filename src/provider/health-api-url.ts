// Health's check of proxmox.nodes[i].apiUrl (SPEC 28): the node's own
// pveproxy answers, and serves the same cluster as proxmox.url (the same
// node names in /nodes), so that node's calls and uploads land where the
// rest of the service looks.
import type { NodeConfig } from '../config/types.js';
import type { NodeEntry } from '../proxmox/api.js';
import { jobSeam } from './job-seam.js';
import type { ProviderDeps } from './deps.js';
import { throwIfAborted } from './errors.js';
import { finding, type Finding } from './health-finding.js';
import { nodeKey } from './template-ref.js';
import type { OperationContext } from './types.js';

const names = (nodes: NodeEntry[]): string => nodes.map((n) => n.node).sort().join(', ');

/** The URL as a detail may show it: scheme, host and port, never a user or password in it. */
function shown(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an unparsable URL';
  }
}

export async function apiUrlProblem(deps: ProviderDeps, ctx: OperationContext, node: NodeConfig, cluster: NodeEntry[]): Promise<Finding | undefined> {
  if (node.apiUrl === undefined) return undefined;
  const named = `${nodeKey(deps, node, 'apiUrl')} (${shown(node.apiUrl)})`;
  try {
    const there = await jobSeam(deps, ctx).nodes({ via: node.name });
    if (names(there) === names(cluster)) return undefined;
    return { reason: 'Unreachable', detail: `${named} serves another cluster: its nodes are ${names(there)}, proxmox.url's are ${names(cluster)}; fix ${nodeKey(deps, node, 'apiUrl')}` };
  } catch (err) {
    throwIfAborted(ctx.signal);
    const failed = finding(err, 'Unreachable');
    return { reason: failed.reason, detail: `${named} does not answer: ${failed.detail}` };
  }
}
