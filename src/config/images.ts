// The images a create may pick (SPEC 27), resolved from config: the
// configured proxmox.images, or, when there are none, one implicit image
// `default` made of each node's nodes[].template (how configs from before
// images keep working). Every layer that needs an image reads it here.
import type { Config, ImageConfig, NodeTemplate, Readiness } from './types.js';

/** The name of the implicit image of a config without proxmox.images. */
export const IMPLICIT_IMAGE = 'default';

/** SPEC 29: what an image without `readiness` waits for, and the port `tcp` connects to without `readinessPort`. */
export const DEFAULT_READINESS: Readiness = 'agent';
export const DEFAULT_READINESS_PORT = 22;

export interface ImageTemplate {
  /** The node the VM lands on. */
  node: string;
  template: NodeTemplate;
  /** The config key that names this template, for an operator to fix: `proxmox.images[0].templates.pve1`. */
  key: string;
}

export interface ResolvedImage {
  name: string;
  description?: string;
  isDefault: boolean;
  /** One per configured node that serves the image, in proxmox.nodes order. */
  templates: ImageTemplate[];
  /** How a create of it learns its VM is ready (SPEC 29). */
  readiness: Readiness;
  /** The port readiness `tcp` connects to. */
  readinessPort: number;
}

function readinessOf(image: Pick<ImageConfig, 'readiness' | 'readinessPort'> = {}): Pick<ResolvedImage, 'readiness' | 'readinessPort'> {
  return { readiness: image.readiness ?? DEFAULT_READINESS, readinessPort: image.readinessPort ?? DEFAULT_READINESS_PORT };
}

type ProxmoxImages = Pick<Config['proxmox'], 'nodes' | 'images' | 'defaultImage'>;

export function defaultImageOf(proxmox: Pick<ProxmoxImages, 'defaultImage'> & { images: { name: string }[] }): string {
  if (proxmox.defaultImage !== '') return proxmox.defaultImage;
  return proxmox.images[0]?.name ?? IMPLICIT_IMAGE;
}

export function imagesOf(proxmox: ProxmoxImages): ResolvedImage[] {
  const defaultName = defaultImageOf(proxmox);
  if (proxmox.images.length === 0) {
    const templates = proxmox.nodes.flatMap((node, i) =>
      node.template === undefined ? [] : [{ node: node.name, template: node.template, key: `proxmox.nodes[${i}].template` }],
    );
    return [{ name: IMPLICIT_IMAGE, description: 'the template of each node (proxmox.nodes[].template)', isDefault: defaultName === IMPLICIT_IMAGE, templates, ...readinessOf() }];
  }
  return proxmox.images.map((image, i) => ({
    name: image.name,
    ...(image.description !== undefined ? { description: image.description } : {}),
    isDefault: image.name === defaultName,
    templates: proxmox.nodes.flatMap((node) => {
      const template = image.templates[node.name];
      return template === undefined ? [] : [{ node: node.name, template, key: `proxmox.images[${i}].templates.${node.name}` }];
    }),
    ...readinessOf(image),
  }));
}

/** What is wrong with the images of a loaded config, in words naming the key; empty when nothing is. */
export function imageProblems(proxmox: ProxmoxImages): string[] {
  const problems: string[] = [];
  const nodeNames = proxmox.nodes.map((node) => node.name);
  if (proxmox.images.length === 0) {
    proxmox.nodes.forEach((node, i) => {
      if (node.template === undefined) problems.push(`proxmox.nodes[${i}] (${node.name}) has no template, and proxmox.images is empty: give the node a template or configure proxmox.images`);
    });
  }
  proxmox.images.forEach((image, i) => {
    for (const node of Object.keys(image.templates)) {
      if (!nodeNames.includes(node)) problems.push(`proxmox.images[${i}] (${image.name}) names node "${node}", which is not in proxmox.nodes (${nodeNames.join(', ')})`);
    }
  });
  const names = imagesOf(proxmox).map((image) => image.name);
  if (proxmox.defaultImage !== '' && !names.includes(proxmox.defaultImage)) {
    problems.push(`proxmox.defaultImage "${proxmox.defaultImage}" is not an image (images: ${names.join(', ')})`);
  }
  return problems;
}

/** SPEC 29: an image whose guest phones home needs the URL it calls, http.publicUrl; in words naming the keys, empty when fine. */
export function readinessProblems(config: { proxmox: Pick<Config['proxmox'], 'images'>; http: Pick<Config['http'], 'publicUrl'> }): string[] {
  if (config.http.publicUrl !== '') return [];
  return config.proxmox.images.flatMap((image, i) =>
    image.readiness === 'phone-home'
      ? [`proxmox.images[${i}] (${image.name}) has readiness "phone-home" but http.publicUrl is empty: set http.publicUrl to the address its guests reach the API at (they POST to <http.publicUrl>/v1/ready/<token>)`]
      : [],
  );
}
