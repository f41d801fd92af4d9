// Health's storage checks (SPEC 19, 28): every storage the config names
// for a node (nodes[i].isoStorage for seeds, nodes[i].storage for the
// clone's disks) listed on that node, enabled there, holding the content
// we need and active. GET /nodes/{node}/storage runs storage_info over
// every storage of the node (Status.pm index, audit 4), so one health
// check lists each node once, whoever asks.
import type { NodeConfig } from '../config/types.js';
import type { StorageEntry } from '../proxmox/api.js';
import { jobSeam } from './job-seam.js';
import type { ProviderDeps } from './deps.js';
import { nodeKey, type NodeImageTemplate } from './template-ref.js';
import type { Finding } from './health-finding.js';
import type { OperationContext } from './types.js';

/** A node's storage listing, asked once per health check. */
export type StorageListing = (node: string) => Promise<StorageEntry[]>;

export function storageListings(deps: ProviderDeps, ctx: OperationContext): StorageListing {
  const asked = new Map<string, Promise<StorageEntry[]>>();
  return (node) => {
    let listing = asked.get(node);
    if (listing === undefined) {
      listing = jobSeam(deps, ctx).storages(node);
      // Each caller sees the failure; none is left unhandled while nobody awaits it.
      listing.catch(() => undefined);
      asked.set(node, listing);
    }
    return listing;
  };
}

interface Wanted {
  storage: string;
  key: string;
  /** The content type Proxmox must allow there, and its name for people. */
  content: 'iso' | 'images';
  what: string;
}

function wantedOn(deps: ProviderDeps, node: NodeConfig): Wanted[] {
  const wanted: Wanted[] = [{ storage: node.isoStorage, key: nodeKey(deps, node, 'isoStorage'), content: 'iso', what: 'ISO images (the seeds)' }];
  if (node.storage !== undefined) wanted.push({ storage: node.storage, key: nodeKey(deps, node, 'storage'), content: 'images', what: 'VM disk images' });
  return wanted;
}

/** The first thing wrong with one storage on one node, in the order an operator fixes them. */
function problemOf(entry: StorageEntry | undefined, want: Wanted, node: string): string | undefined {
  const named = `storage ${want.storage} (${want.key})`;
  if (entry === undefined) return `${named} is not listed on node ${node}: it does not exist in the Proxmox cluster; fix ${want.key}`;
  if (entry.enabled === 0) {
    return `${named} is disabled, or not available on node ${node} (storage.cfg's disable or nodes): enable it for ${node}, or fix ${want.key}`;
  }
  const content = (entry.content ?? '').split(',');
  if (!content.includes(want.content)) return `${named} on node ${node} does not hold ${want.what} (content: ${entry.content ?? 'none'}); add ${want.content} to its content, or fix ${want.key}`;
  if (entry.active === 0) return `${named} is not active on node ${node}: Proxmox cannot reach it`;
  return undefined;
}

/**
 * Every storage problem of a node: its own storages on it, and for a
 * template on another node cloned here with target, nodes[i].storage on
 * the template's node too (clone_vm checks it there first).
 */
export async function storageProblems(deps: ProviderDeps, node: NodeConfig, served: NodeImageTemplate[], listing: StorageListing): Promise<Finding[]> {
  const found: Finding[] = [];
  const own = await listing(node.name);
  for (const want of wantedOn(deps, node)) {
    const problem = problemOf(own.find((s) => s.storage === want.storage), want, node.name);
    if (problem !== undefined) found.push({ reason: 'StorageNotFound', detail: problem });
  }
  const cloneTo = wantedOn(deps, node).find((w) => w.content === 'images');
  if (cloneTo === undefined) return found;
  const sources = new Set(served.flatMap((t) => (t.source.target === undefined ? [] : [t.source.node])));
  for (const source of sources) {
    const entry = (await listing(source)).find((s) => s.storage === cloneTo.storage);
    if (entry !== undefined && entry.enabled !== 0) continue;
    found.push({
      reason: 'StorageNotFound',
      detail: `storage ${cloneTo.storage} (${cloneTo.key}) is disabled or not available on node ${source}, where the template is cloned from: enable it for ${source}, or fix ${cloneTo.key}`,
    });
  }
  return found;
}
