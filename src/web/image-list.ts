// What GET /v1/images answers (SPEC 27): each image from config with its
// template per node, and what the last health job found for that image on
// that node (SPEC 19), when one has run since images were checked.
import { imagesOf } from '../config/images.js';
import type { Config } from '../config/types.js';
import { clustersOf, configForCluster } from '../config/clusters.js';
import { sourceOf, type TemplateSource } from '../config/template-source.js';
import type { ImageHealth } from '../job-table/health-result.schema.js';
import type { LastHealth } from '../queue/health-store.js';

export interface ImageNodeView {
  node: string;
  /** The node's cluster, in the several-clusters form (SPEC 32). */
  cluster?: string;
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

/** One cluster's images (the one-cluster form's are the config's), each node's entry with its health there. */
function clusterImages(config: Pick<Config, 'proxmox'>, last: LastHealth | undefined): ImageView[] {
  const cluster = config.proxmox.clusterName;
  return imagesOf(config.proxmox).map((image) => ({
    name: image.name,
    ...(image.description !== undefined ? { description: image.description } : {}),
    default: image.isDefault,
    nodes: image.templates.map((entry) => {
      const found = last?.nodes.find((n) => n.node === entry.node && n.cluster === cluster)?.images?.find((i) => i.image === image.name);
      const view: ImageNodeView = { node: entry.node, ...(cluster === undefined ? {} : { cluster }), template: sourceOf(entry) };
      if (found === undefined || last === undefined) return view;
      return { ...view, health: { ok: found.ok, reasons: found.reasons, ...(found.notes !== undefined ? { notes: found.notes } : {}), at: last.at } };
    }),
  }));
}

/**
 * Every image a create may name: with several clusters (SPEC 32) an image
 * of one name in several is one entry whose nodes name their cluster,
 * default when it is the first cluster's default.
 */
export function listImages(config: Pick<Config, 'proxmox'>, last: LastHealth | undefined): ImageView[] {
  const merged = new Map<string, ImageView>();
  clustersOf(config).forEach((cluster, i) => {
    for (const image of clusterImages(configForCluster(config, cluster), last)) {
      const seen = merged.get(image.name);
      if (seen === undefined) merged.set(image.name, { ...image, default: image.default && i === 0 });
      else seen.nodes.push(...image.nodes);
    }
  });
  return [...merged.values()];
}
