// Where a new VM goes (SPEC 13): the node the job names, which must be a
// configured one, else the online configured node with the most free
// memory (one `/cluster/resources?type=node` call).
import type { NodeConfig } from '../config/types.js';
import type { OperationContext } from './types.js';
import { callOpts } from './context.js';
import type { ProviderDeps } from './deps.js';
import { permanent, transient } from './errors.js';
import { call } from './call.js';

export function configuredNode(deps: ProviderDeps, name: string): NodeConfig | undefined {
  return deps.config.proxmox.nodes.find((n) => n.name === name);
}

/** Refuses a node the config does not name, before anything else happens. */
export function requireConfiguredNode(deps: ProviderDeps, name: string): NodeConfig {
  const node = configuredNode(deps, name);
  if (!node) {
    const known = deps.config.proxmox.nodes.map((n) => n.name).join(', ');
    throw permanent(`node '${name}' is not a configured node (configured: ${known})`);
  }
  return node;
}

export async function chooseNode(deps: ProviderDeps, ctx: OperationContext): Promise<NodeConfig> {
  const entries = await call(ctx, () => deps.api.clusterResources('node', callOpts(ctx)));
  let best: { node: NodeConfig; free: number } | undefined;
  for (const node of deps.config.proxmox.nodes) {
    const entry = entries.find((e) => e.type === 'node' && e.node === node.name);
    if (entry?.status !== 'online') continue;
    const free = (entry.maxmem ?? 0) - (entry.mem ?? 0);
    if (!best || free > best.free) best = { node, free };
  }
  if (!best) throw transient(`no configured node is online (${deps.config.proxmox.nodes.map((n) => n.name).join(', ')})`);
  return best.node;
}
