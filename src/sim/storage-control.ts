// /_sim/storages (SPEC 28): storage.cfg's `disable` and `nodes` of each
// storage, which Storage.pm storage_check_enabled reads. A disabled
// storage, or one whose `nodes` leave a node out, is refused there with
// Proxmox's texts, listed `enabled: 0` by GET /nodes/{node}/storage and
// left out of /cluster/resources for that node.
import type { SimState, StorageCfg } from './state.js';

export interface StorageChange {
  storage: string;
  disable?: boolean;
  /** The nodes that may use it; null removes the restriction. */
  nodes?: string[] | null;
}

/** Every storage of storage.cfg with its `disable` and `nodes`. */
export function storageCfgView(state: SimState): Record<string, unknown>[] {
  return state.storageIds().map((s) => {
    const cfg = state.storageCfg.get(s.storage);
    return {
      storage: s.storage,
      type: s.type,
      content: s.content.join(','),
      shared: s.shared,
      disable: cfg?.disable ?? false,
      ...(cfg?.nodes === undefined ? {} : { nodes: cfg.nodes }),
    };
  });
}

export function storageChangeProblems(body: unknown, state: SimState): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['the body must be a JSON object {storage, disable?, nodes?}'];
  const c = body as Record<string, unknown>;
  const problems: string[] = [];
  const ids = state.storageIds().map((s) => s.storage);
  if (typeof c.storage !== 'string' || !ids.includes(c.storage)) problems.push(`storage: must be one of ${ids.join(', ')}`);
  if (c.disable !== undefined && typeof c.disable !== 'boolean') problems.push('disable: true or false');
  const nodes = c.nodes;
  if (nodes !== undefined && nodes !== null) {
    const known = [...state.nodes.keys()];
    if (!Array.isArray(nodes) || nodes.length === 0 || nodes.some((n) => typeof n !== 'string' || !known.includes(n))) {
      problems.push(`nodes: a non-empty list of ${known.join(', ')}, or null for every node`);
    }
  }
  const extra = Object.keys(c).find((k) => k !== 'storage' && k !== 'disable' && k !== 'nodes');
  if (extra !== undefined) problems.push(`${extra}: unknown key; allowed: storage, disable, nodes`);
  return problems;
}

/** Applies a checked change: keys absent are left as they were. */
export function changeStorage(state: SimState, change: StorageChange): void {
  const cfg: StorageCfg = { ...(state.storageCfg.get(change.storage) ?? { disable: false }) };
  if (change.disable !== undefined) cfg.disable = change.disable;
  if (change.nodes === null) delete cfg.nodes;
  else if (change.nodes !== undefined) cfg.nodes = [...change.nodes];
  if (!cfg.disable && cfg.nodes === undefined) state.storageCfg.delete(change.storage);
  else state.storageCfg.set(change.storage, cfg);
}
