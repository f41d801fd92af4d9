// An image's template for one node as the provider clones from it (SPEC
// 23, 27): where it lives (src/config/template-source.ts), the config key
// that names it, and the words and config paths its errors give.
import { defaultImageOf, imagesOf, type ResolvedImage } from '../config/images.js';
import { sourceOf, type TemplateSource } from '../config/template-source.js';
import type { NodeConfig } from '../config/types.js';
import type { ProviderDeps } from './deps.js';

/** One image's template for one node: where to clone from, and the config key that names it. */
export interface NodeImageTemplate {
  image: string;
  source: TemplateSource;
  key: string;
}

/** The image a create asked for, or the default one. */
export function imageNamed(deps: ProviderDeps, name: string | undefined): ResolvedImage | undefined {
  const wanted = name ?? defaultImageOf(deps.config.proxmox);
  return imagesOf(deps.config.proxmox).find((image) => image.name === wanted);
}

/** The image's template for this node, or undefined when the node does not serve it. */
export function templateFor(image: ResolvedImage, node: NodeConfig): NodeImageTemplate | undefined {
  const entry = image.templates.find((t) => t.node === node.name);
  return entry === undefined ? undefined : { image: image.name, source: sourceOf(entry), key: entry.key };
}

/** `template 9001 on pve1`, with `(cloned to pve2)` for a cross-node template. */
export function describeTemplate(source: TemplateSource): string {
  return `template ${source.vmid} on node ${source.node}${source.target === undefined ? '' : ` (cloned to ${source.target})`}`;
}

/** The config path of one of a node's keys, so an operator knows what to fix: `proxmox.nodes[1].storage`. */
export function nodeKey(deps: ProviderDeps, node: NodeConfig, key: keyof NodeConfig): string {
  const index = deps.config.proxmox.nodes.findIndex((n) => n.name === node.name);
  return `proxmox.nodes[${index < 0 ? '?' : index}].${key}`;
}
