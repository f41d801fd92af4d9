// Where an image's template for a node lives (SPEC 23, 27): on the node
// itself, or on another node of the cluster, cloned across with `target`
// (Proxmox allows that only when the template's disks are on shared
// storage).
import { defaultImageOf, imagesOf, type ImageTemplate, type ResolvedImage } from '../config/images.js';
import type { NodeConfig } from '../config/types.js';
import type { ProviderDeps } from './deps.js';

export interface TemplateSource {
  vmid: number;
  /** The node that holds the template: the clone call goes there. */
  node: string;
  /** The node the clone lands on, when it is not the template's. */
  target?: string;
}

/** One image's template for one node: where to clone from, and the config key that names it. */
export interface NodeImageTemplate {
  image: string;
  source: TemplateSource;
  key: string;
}

export function sourceOf(entry: ImageTemplate): TemplateSource {
  const template = entry.template;
  if (typeof template === 'number') return { vmid: template, node: entry.node };
  if (template.node === entry.node) return { vmid: template.vmid, node: entry.node };
  return { vmid: template.vmid, node: template.node, target: entry.node };
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
