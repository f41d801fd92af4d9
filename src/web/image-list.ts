// What GET /v1/images answers (SPEC 27): each image from config with its
// template per node, and what the last health job found for that image on
// that node (SPEC 19), when one has run since images were checked.
import { imagesOf } from '../config/images.js';
import type { Config } from '../config/types.js';
import { sourceOf, type TemplateSource } from '../config/template-source.js';
import type { ImageHealth } from '../job-table/health-result.schema.js';
import type { LastHealth } from '../queue/health-store.js';

export interface ImageNodeView {
  node: string;
  /** Where the clone comes from: the template's VMID and node, and `target` when it is cloned across to this node. */
  template: TemplateSource;
  /** The last health job's finding, with its notes (a protected template, SPEC 28) when it had any; absent until one has run. */
  health?: Pick<ImageHealth, 'ok' | 'reasons' | 'notes'> & { at: string };
}

export interface ImageView {
  name: string;
  description?: string;
  default: boolean;
  nodes: ImageNodeView[];
}

export function listImages(config: Pick<Config, 'proxmox'>, last: LastHealth | undefined): ImageView[] {
  return imagesOf(config.proxmox).map((image) => ({
    name: image.name,
    ...(image.description !== undefined ? { description: image.description } : {}),
    default: image.isDefault,
    nodes: image.templates.map((entry) => {
      const found = last?.nodes.find((n) => n.node === entry.node)?.images?.find((i) => i.image === image.name);
      const view: ImageNodeView = { node: entry.node, template: sourceOf(entry) };
      if (found === undefined || last === undefined) return view;
      return { ...view, health: { ok: found.ok, reasons: found.reasons, ...(found.notes !== undefined ? { notes: found.notes } : {}), at: last.at } };
    }),
  }));
}
