// Where an image's template for a node lives (SPEC 23, 27), read from
// config: on the node itself, or on another node of the cluster, cloned
// across with `target` (Proxmox allows that only when the template's
// disks are on shared storage). The provider clones from it; the HTTP API
// shows it (GET /v1/images) and a create's result names it.
import type { ImageTemplate } from './images.js';

/** The template a VM is cloned from: the node holding it, and the node the clone lands on when another. */
export interface TemplateSource {
  vmid: number;
  /** The node that holds the template: the clone call goes there. */
  node: string;
  /** The node the clone lands on, when it is not the template's. */
  target?: string;
}

export function sourceOf(entry: ImageTemplate): TemplateSource {
  const template = entry.template;
  if (typeof template === 'number') return { vmid: template, node: entry.node };
  if (template.node === entry.node) return { vmid: template.vmid, node: entry.node };
  return { vmid: template.vmid, node: template.node, target: entry.node };
}
