// Health (SPEC 19, 27, 28): every configured node checked concurrently:
// /version, the node online, its own apiUrl (health-api-url.ts), its
// storages (health-storage.ts),
// and for each image the node serves, its template present and a
// template, on shared storage when it lives on another node (SPEC 23).
// Each failure is a reason an operator can act on; a node is fit for an
// image only when the node and that image's template there are. A
// protected template is a note, not a failure (SPEC 28): the create clears
// the flag its clones copy.
import { imagesOf } from '../config/images.js';
import type { NodeConfig } from '../config/types.js';
import { NotFoundError } from '../errors.js';
import type { ImageHealth, NodeHealth, OperationContext } from './types.js';
import type { ProviderDeps } from './deps.js';
import { jobSeam } from './job-seam.js';
import { throwIfAborted } from './errors.js';
import type { TemplateSource } from '../config/template-source.js';
import { describeTemplate, templateFor, type NodeImageTemplate } from './template-ref.js';
import { isProtected, volumeStorages } from './vm-config.js';
import { storageListings, storageProblems, type StorageListing } from './health-storage.js';
import { apiUrlProblem } from './health-api-url.js';
import { finding, type Finding } from './health-finding.js';
import type { NodeEntry, VmConfig } from '../proxmox/api.js';

const MIB = 2 ** 20;

/** The node's free memory in MiB from its `/nodes` entry, when the entry says. */
function freeMemoryMiB(entry: NodeEntry | undefined): number | undefined {
  if (typeof entry?.maxmem !== 'number' || typeof entry.mem !== 'number') return undefined;
  return Math.max(0, Math.floor((entry.maxmem - entry.mem) / MIB));
}

/**
 * The several-clusters form's fields of an entry (SPEC 32): its cluster,
 * and the free memory the door places creates among clusters by. The
 * one-cluster form's entries stay as they always were.
 */
function clusterFields(deps: ProviderDeps, free: number | undefined): Pick<NodeHealth, 'cluster' | 'freeMemoryMiB'> {
  const cluster = deps.config.proxmox.clusterName;
  if (cluster === undefined) return {};
  return { cluster, ...(free === undefined ? {} : { freeMemoryMiB: free }) };
}

async function checkNode(deps: ProviderDeps, ctx: OperationContext, node: NodeConfig, listing: StorageListing): Promise<NodeHealth> {
  const reasons: Finding[] = [];
  const served = imagesOf(deps.config.proxmox).flatMap((image) => templateFor(image, node) ?? []);
  let free: number | undefined;
  // A node that fails before its templates are read is fit for none of its images, for the same reasons.
  const done = (images: ImageHealth[] = served.map((t) => ({ image: t.image, ok: false, reasons }))): NodeHealth => ({
    node: node.name,
    ...clusterFields(deps, free),
    ok: reasons.length === 0,
    reasons,
    images,
  });
  try {
    await jobSeam(deps, ctx).version();
  } catch (err) {
    throwIfAborted(ctx.signal);
    reasons.push(finding(err, 'Unreachable'));
    return done();
  }
  try {
    const cluster = await jobSeam(deps, ctx).nodes();
    const entry = cluster.find((n) => n.node === node.name);
    free = freeMemoryMiB(entry);
    if (entry?.status !== 'online') {
      reasons.push({ reason: 'NodeOffline', detail: entry ? `node ${node.name} is ${entry.status}` : `node ${node.name} is not in the cluster` });
      return done();
    }
    // SPEC 28: the node's calls go to its own apiUrl; nothing else is worth checking if that fails.
    const apiUrl = await apiUrlProblem(deps, ctx, node, cluster);
    if (apiUrl !== undefined) {
      reasons.push(apiUrl);
      return done();
    }
  } catch (err) {
    throwIfAborted(ctx.signal);
    reasons.push(finding(err, 'Unreachable'));
    return done();
  }
  const [storage, ...templates] = await Promise.all([checkStorage(deps, ctx, node, served, listing), ...served.map((t) => checkTemplate(deps, ctx, t, listing))]);
  reasons.push(...storage);
  const images = served.map((t, i): ImageHealth => {
    const problem = templates[i]?.problem;
    const note = templates[i]?.note;
    const found = [...storage, ...(problem ? [problem] : [])];
    return { image: t.image, ok: found.length === 0, reasons: found, ...(note ? { notes: [note] } : {}) };
  });
  for (const template of templates) if (template.problem) reasons.push(template.problem);
  const notes = templates.flatMap((t) => t.note ?? []);
  return { ...done(images), ...(notes.length > 0 ? { notes } : {}) };
}

async function checkStorage(deps: ProviderDeps, ctx: OperationContext, node: NodeConfig, served: NodeImageTemplate[], listing: StorageListing): Promise<Finding[]> {
  try {
    return await storageProblems(deps, node, served, listing);
  } catch (err) {
    throwIfAborted(ctx.signal);
    return [finding(err, 'StorageNotFound')];
  }
}

interface TemplateCheck {
  problem?: Finding;
  note?: string;
}

async function checkTemplate(deps: ProviderDeps, ctx: OperationContext, image: NodeImageTemplate, listing: StorageListing): Promise<TemplateCheck> {
  const template = image.source;
  const fix = `fix ${image.key} (image ${image.image})`;
  try {
    const config = await jobSeam(deps, ctx).getConfig(template.node, template.vmid);
    if (Number(config.template) !== 1) {
      return { problem: { reason: 'TemplateNotFound', detail: `VM ${template.vmid} (${config.name ?? 'unnamed'}) on ${template.node} is not a template; ${fix}` } };
    }
    const note = isProtected(config) ? protectedNote(image, config) : undefined;
    const problem = template.target !== undefined ? await crossNodeProblem(listing, template, config, fix) : undefined;
    return { ...(problem ? { problem } : {}), ...(note ? { note } : {}) };
  } catch (err) {
    throwIfAborted(ctx.signal);
    if (err instanceof NotFoundError) return { problem: { reason: 'TemplateNotFound', detail: `template ${template.vmid} does not exist on ${template.node}; ${fix}` } };
    return { problem: finding(err, 'TemplateNotFound') };
  }
}

/** SPEC 28: every clone copies the flag; the create's config write deletes it, so this is for the operator to know, not to fix. */
function protectedNote(image: NodeImageTemplate, config: VmConfig): string {
  return `image ${image.image}'s ${describeTemplate(image.source)} (${config.name ?? 'unnamed'}) is protected: every clone copies protection: 1, and the create deletes it in its config write, so VMs made from it end unprotected; clones made by hand from it stay protected`;
}

/** A template on another node serves this one only when every volume is on shared storage (SPEC 23). */
async function crossNodeProblem(listing: StorageListing, template: TemplateSource, config: VmConfig, fix: string): Promise<Finding | undefined> {
  const storages = await listing(template.node);
  const local = volumeStorages(config).filter((id) => storages.find((s) => s.storage === id)?.shared !== 1);
  if (local.length === 0) return undefined;
  return {
    reason: 'TemplateNotFound',
    detail: `${describeTemplate(template)} cannot serve ${template.target ?? ''}: its disks are on storage that is not shared (${local.join(', ')}), and Proxmox clones to another node only from shared storage; ${fix}, or move its disks to shared storage`,
  };
}

export async function health(deps: ProviderDeps, ctx: OperationContext): Promise<NodeHealth[]> {
  const listing = storageListings(deps, ctx);
  return Promise.all(deps.config.proxmox.nodes.map((node) => checkNode(deps, ctx, node, listing)));
}
