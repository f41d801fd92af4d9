// The `storages` option (SPEC 33): each node's storages as a recorded
// host listed them, replacing the default set, so a replay of a recording
// meets the host's storages. `enabled: false` on a node becomes
// storage.cfg's `disable` (off on every node that lists it) or its
// `nodes` (the nodes where it is on), which Storage.pm
// storage_check_enabled reads (storage-control.ts); `active: false`
// lists it as storage_info does a storage it could not activate.
import type { NodeStorages, SimStorage, StorageCfg } from './state.js';

/** One storage of one node, as `GET /nodes/{node}/storage` lists it. */
export interface SimStorageSpec {
  node: string;
  storage: string;
  /** `dir`, `lvmthin`, `nfs`, `zfspool`, ... */
  type: string;
  /** Content types, comma-separated as listed (`iso,vztmpl`). */
  content: string;
  shared: boolean;
  enabled: boolean;
  active: boolean;
}

/** Storage types whose volumes are files under a mount point (pve-storage's plugins with `path`). */
const FILE_TYPES = new Set(['dir', 'nfs', 'cifs', 'cephfs', 'glusterfs', 'btrfs']);

function mountPoint(spec: SimStorageSpec): string | undefined {
  if (!FILE_TYPES.has(spec.type)) return undefined;
  // A dir storage's path is its own (storage.cfg), which no listing tells: `/mnt/<id>`, as the default set has it.
  if (spec.storage === 'local') return '/var/lib/vz';
  return spec.type === 'dir' ? `/mnt/${spec.storage}` : `/mnt/pve/${spec.storage}`;
}

function simStorage(spec: SimStorageSpec): SimStorage {
  const path = mountPoint(spec);
  return {
    storage: spec.storage,
    type: spec.type,
    content: spec.content.split(',').filter((c) => c !== ''),
    shared: spec.shared,
    ...(path === undefined ? {} : { path }),
    isoDir: path === undefined ? '' : `${path}/template/iso`,
    volumes: new Map(),
    ...(spec.active ? {} : { inactive: true }),
  };
}

/** Each node's storages (a shared one is the same object on every node), and storage.cfg's `disable`/`nodes`. */
export function storagesFromSpecs(nodes: string[], specs: SimStorageSpec[]): NodeStorages {
  const byNode = new Map(nodes.map((node) => [node, new Map<string, SimStorage>()]));
  const shared = new Map<string, SimStorage>();
  for (const spec of specs) {
    const storages = byNode.get(spec.node);
    if (storages === undefined) throw new Error(`storages: node ${spec.node} of storage ${spec.storage} is not one of ${nodes.join(', ')}`);
    const storage = spec.shared ? (shared.get(spec.storage) ?? simStorage(spec)) : simStorage(spec);
    if (spec.shared) shared.set(spec.storage, storage);
    storages.set(spec.storage, storage);
  }
  const cfg = new Map<string, StorageCfg>();
  for (const id of new Set(specs.map((s) => s.storage))) {
    const listed = specs.filter((s) => s.storage === id);
    const on = listed.filter((s) => s.enabled).map((s) => s.node);
    if (on.length === listed.length) continue;
    cfg.set(id, on.length === 0 ? { disable: true } : { disable: false, nodes: on });
  }
  return { byNode, cfg };
}
