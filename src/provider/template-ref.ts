// Where a node's template lives (SPEC 23): on the node itself, or on
// another node of the cluster, cloned across with `target` (Proxmox allows
// that only when the template's disks are on shared storage).
import type { NodeConfig } from '../config/types.js';
import type { ProviderDeps } from './deps.js';

export interface TemplateSource {
  vmid: number;
  /** The node that holds the template: the clone call goes there. */
  node: string;
  /** The node the clone lands on, when it is not the template's. */
  target?: string;
}

export function templateOf(node: NodeConfig): TemplateSource {
  const template = node.template;
  if (typeof template === 'number') return { vmid: template, node: node.name };
  if (template.node === node.name) return { vmid: template.vmid, node: node.name };
  return { vmid: template.vmid, node: template.node, target: node.name };
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
