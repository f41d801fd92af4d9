// verify's storages group (SPEC 33): on every node, the seed storage
// (isoStorage, content `iso`) and the clone's storage (nodes[].storage,
// else the template's disks', content `images`) listed, enabled, active
// and holding that content; then the seed storage written and cleaned
// (seed-probe.ts). Nodes run in parallel, results in config order.
import type { NodeConfig } from '../../config/types.js';
import type { StorageEntry } from '../../proxmox/api.js';
import { errorText, fail, ok, skip, type VerifyContext } from '../context.js';
import type { CheckResult } from '../types.js';
import { diskStorages } from './privileges.js';
import { probeSeedStorage } from './seed-probe.js';

const GROUP = 'storages';

function contentOf(entry: StorageEntry): string[] {
  return (entry.content ?? '').split(',').filter((c) => c !== '');
}

/** One storage on one node: listed, enabled, active, with the content needed; the fix names the storage option. */
export function storageResult(node: string, storage: string, content: 'iso' | 'images', listed: StorageEntry[], key: string): CheckResult {
  const name = `storage ${storage} on ${node} (${content})`;
  const entry = listed.find((s) => s.storage === storage);
  if (entry === undefined) return fail(GROUP, name, `storage ${storage} is not available on ${node}`, `pvesm set ${storage} --nodes <its nodes>,${node} (or add it on ${node}), or fix ${key}`);
  if (entry.enabled === 0) return fail(GROUP, name, `storage ${storage} is disabled`, `pvesm set ${storage} --disable 0`);
  if (entry.active !== 1) return fail(GROUP, name, `storage ${storage} is not active on ${node}`, `make ${storage} reachable from ${node} (pvesm status --storage ${storage} on ${node} says why)`);
  const has = contentOf(entry);
  if (!has.includes(content)) return fail(GROUP, name, `storage ${storage} holds ${has.join(',') || 'no content'}, not ${content}`, `pvesm set ${storage} --content ${[...has, content].join(',')}`);
  return ok(GROUP, name, `enabled, active, content ${has.join(',')}`);
}

/** The storages a clone on this node writes to, each with the config key to fix. */
async function cloneStorages(ctx: VerifyContext, node: NodeConfig, index: number): Promise<{ storage: string; key: string }[]> {
  if (node.storage !== undefined) return [{ storage: node.storage, key: `proxmox.nodes[${index}].storage` }];
  const templates = (await ctx.templates()).filter((t) => t.node === node.name && t.config !== undefined);
  return [...new Set(templates.flatMap((t) => diskStorages(t.config ?? {})))].map((storage) => ({ storage, key: `proxmox.nodes[${index}].storage` }));
}

async function checkNode(ctx: VerifyContext, node: NodeConfig, index: number, listings: StorageEntry[][]): Promise<CheckResult[]> {
  const listed = ctx.inventory.nodes.find((n) => n.node === node.name);
  if (listed !== undefined && listed.status !== 'online') return [skip(GROUP, `storages on ${node.name}`, `node ${node.name} is ${listed.status}`)];
  let storages: StorageEntry[];
  try {
    storages = await ctx.api.storages(node.name);
  } catch (err) {
    return [fail(GROUP, `storages on ${node.name}`, errorText(err), `check that node ${node.name} answers (pvesm status on it)`)];
  }
  listings[index] = storages;
  const seed = storageResult(node.name, node.isoStorage, 'iso', storages, `proxmox.nodes[${index}].isoStorage`);
  const clones = (await cloneStorages(ctx, node, index)).map((c) => storageResult(node.name, c.storage, 'images', storages, c.key));
  const probe = seed.status === 'ok' ? await probeSeedStorage(ctx, node) : skip(GROUP, `seed storage ${node.isoStorage} on ${node.name} writable`, 'the storage check above failed');
  return [seed, ...clones, probe];
}

export async function checkStorages(ctx: VerifyContext): Promise<CheckResult[]> {
  const listings: StorageEntry[][] = [];
  const perNode = await Promise.all(ctx.config.proxmox.nodes.map((node, i) => checkNode(ctx, node, i, listings)));
  // The inventory in config order, whichever node answered first.
  ctx.config.proxmox.nodes.forEach((node, i) => ctx.inventory.storages.push(...(listings[i] ?? []).map((s) => ({ ...s, node: node.name }))));
  return perNode.flat();
}
