// Where a new VM goes (SPEC 13, 27): the node the job names, which must be
// a configured one that serves the job's image, else the online
// configured node serving it with the most free memory (one
// `/cluster/resources?type=node` call).
import type { ResolvedImage } from '../config/images.js';
import type { NodeConfig } from '../config/types.js';
import type { OperationContext } from './types.js';
import type { ProviderDeps } from './deps.js';
import { permanent, transient } from './errors.js';
import { call } from './call.js';
import { imageNamed, templateFor, type NodeImageTemplate } from './template-ref.js';

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

/** The image a create names (or the default one); an unknown one is Permanent. */
export function requireImage(deps: ProviderDeps, name: string | undefined): ResolvedImage {
  const image = imageNamed(deps, name);
  if (image === undefined) throw permanent(`image '${name ?? ''}' is not a configured image (proxmox.images)`);
  return image;
}

function servingNodes(deps: ProviderDeps, image: ResolvedImage): NodeConfig[] {
  return deps.config.proxmox.nodes.filter((node) => templateFor(image, node) !== undefined);
}

/** The image's template on this node; a node that does not serve the image is Permanent. */
export function requireTemplate(deps: ProviderDeps, image: ResolvedImage, node: NodeConfig): NodeImageTemplate {
  const template = templateFor(image, node);
  if (template === undefined) {
    const serving = servingNodes(deps, image).map((n) => n.name).join(', ');
    throw permanent(`node '${node.name}' does not serve image '${image.name}' (served by: ${serving || 'no node'})`);
  }
  return template;
}

/** The online node serving the image with the most free memory. */
export async function chooseNode(deps: ProviderDeps, ctx: OperationContext, image: ResolvedImage): Promise<NodeConfig> {
  const entries = await call(ctx, () => deps.waits.reads.nodes.read(ctx.signal));
  let best: { node: NodeConfig; free: number } | undefined;
  const candidates = servingNodes(deps, image);
  for (const node of candidates) {
    const entry = entries.find((e) => e.type === 'node' && e.node === node.name);
    if (entry?.status !== 'online') continue;
    const free = (entry.maxmem ?? 0) - (entry.mem ?? 0);
    if (!best || free > best.free) best = { node, free };
  }
  if (!best) throw transient(`no configured node serving image '${image.name}' is online (${candidates.map((n) => n.name).join(', ')})`);
  return best.node;
}
