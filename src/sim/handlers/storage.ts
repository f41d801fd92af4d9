// Storages of a node, their content, the ISO upload (F12, F23) and the
// volume delete (F13: a task that ends OK even for a missing volume; 403
// without Datastore.Allocate).
import { dieError, paramError, permissionError } from '../answer-error.js';
import { bytesToKeep } from '../kept-isos.js';
import { vmDisks, type SimStorage } from '../state.js';
import { texts } from '../texts.js';
import { param, perlTrue, type Handler } from './context.js';

const TOTAL = 100_861_726_720;
const USED = 12_884_901_888;

function storageEntry(s: SimStorage, enabled: boolean): Record<string, unknown> {
  const common = { storage: s.storage, type: s.type, content: s.content.join(','), shared: s.shared ? 1 : 0 };
  // storage_info: a storage this node may not use is listed with zeros and neither activated nor measured;
  // one it could not activate (the `storages` option's `active: false`) too, still enabled.
  if (!enabled || s.inactive === true) return { ...common, active: 0, enabled: enabled ? 1 : 0, total: 0, used: 0, avail: 0 };
  return { ...common, active: 1, enabled: 1, total: TOTAL, used: USED, avail: TOTAL - USED, used_fraction: 0.1277 };
}

/**
 * Status.pm index over storage_info: every storage of storage.cfg, `enabled`
 * 0 where storage_check_enabled refuses this node (disabled, or its `nodes`
 * leave the node out); `content` lists only enabled ones that hold a wanted
 * type, `enabled=1` leaves out only the disabled.
 */
export const storages: Handler = (ctx) => {
  const nodeName = param(ctx, 'node');
  const { state } = ctx.sim;
  state.node(nodeName);
  const wanted = ctx.params.content?.split(',');
  const onlyEnabled = ctx.params.enabled !== undefined && perlTrue(ctx.params.enabled);
  return state
    .storageIds()
    .map((s) => ({ s, enabled: state.storageRefusal(nodeName, s.storage) === undefined }))
    .filter(({ s }) => ctx.params.storage === undefined || s.storage === ctx.params.storage)
    .filter(({ s, enabled }) => wanted === undefined || (enabled && wanted.some((c) => s.content.includes(c))))
    .filter(({ s }) => !onlyEnabled || state.storageCfg.get(s.storage)?.disable !== true)
    .map(({ s, enabled }) => storageEntry(state.nodes.get(nodeName)?.storages.get(s.storage) ?? s, enabled));
};

export const storageContent: Handler = (ctx) => {
  const node = param(ctx, 'node');
  const storage = ctx.sim.state.storage(node, param(ctx, 'storage'));
  const content = ctx.params.content;
  const out: Record<string, unknown>[] = [];
  if (content === undefined || content === 'iso') {
    for (const v of storage.volumes.values()) out.push({ volid: v.volid, format: v.format, content: v.content, size: v.size, ctime: v.ctime });
  }
  if ((content === undefined || content === 'images') && storage.content.includes('images')) {
    for (const vm of ctx.sim.state.allVms()) {
      // A shared storage holds the disks of VMs on every node.
      if (vm.node !== node && !storage.shared) continue;
      for (const [, volid, size] of vmDisks(vm)) {
        if (volid.startsWith(`${storage.storage}:`)) out.push({ volid, format: 'raw', content: 'images', size, vmid: vm.vmid });
      }
    }
  }
  return out.sort((a, b) => String(a.volid).localeCompare(String(b.volid)));
};

function isoPath(storage: SimStorage, volid: string): string {
  return `${storage.isoDir}/${volid.slice(volid.indexOf(':iso/') + ':iso/'.length)}`;
}

export const deleteVolume: Handler = (ctx) => {
  const { sim } = ctx;
  const node = param(ctx, 'node');
  const volume = param(ctx, 'volume');
  const volid = volume.includes(':') ? volume : `${param(ctx, 'storage')}:${volume}`;
  const storageId = volid.slice(0, volid.indexOf(':'));
  // F13: the permission check comes first, on the volume's storage.
  if (sim.faults.allocateDenied(storageId)) throw permissionError(`/storage/${storageId}`, 'Datastore.Allocate');
  // Content.pm's path() reads storage.cfg only; vdisk_free activates the storage inside the task.
  const storage = sim.state.node(node).storages.get(storageId) ?? sim.state.storage(node, storageId);
  const refused = sim.state.storageRefusal(node, storageId);
  // Content.pm: the id is `<ownervm>@<storage>` for a VM's volume, the storage id for an ISO.
  return sim.runTask({
    node,
    type: 'imgdel',
    id: storageId,
    owner: ctx.owner,
    seconds: sim.options.taskSeconds,
    run: () => {
      if (refused !== undefined) throw new Error(refused);
      const existed = storage.volumes.delete(volid);
      const missing = existed ? [] : [texts.volumeMissing(isoPath(storage, volid))];
      return [...missing, texts.volumeRemoved(volid)];
    },
  }).upid;
};

/** pve-storage Status.pm upload, its checks in its order: a file storage, the cleaned name's extension (F12), the content type. */
export const upload: Handler = (ctx) => {
  const { sim } = ctx;
  const node = param(ctx, 'node');
  const storage = sim.state.storage(node, param(ctx, 'storage'));
  if (storage.path === undefined) throw dieError(texts.notFileStorage(storage.type));
  const file = ctx.upload;
  if (file === undefined) throw dieError('missing temporary file name');
  const content = param(ctx, 'content');
  const filename = file.filename.replace(/^.*[/\\]/, '').replace(/[^-a-zA-Z0-9_.]/g, '_');
  if (content === 'iso') {
    if (!/[^/]+\.(?:iso|img)$/i.test(filename)) throw paramError({ filename: texts.wrongExtension });
  } else if (content === 'vztmpl') {
    if (!/[^/]+\.tar\.(?:gz|xz|zst|bz2)$/i.test(filename)) throw paramError({ filename: texts.wrongExtension });
  } else {
    throw paramError({ content: `upload content type '${content}' not allowed` });
  }
  if (!storage.content.includes(content)) throw dieError(texts.noContent(storage.storage, content));
  const volid = `${storage.storage}:iso/${filename}`;
  const staged = `/var/tmp/pveupload-${file.sha256.slice(0, 32)}`;
  const target = `${storage.isoDir}/${filename}`;
  // SPEC 16: the task runs on the node that received the request, whatever node the path names.
  return sim.runTask({
    node: ctx.entryNode,
    type: 'imgcopy',
    id: '',
    owner: ctx.owner,
    seconds: sim.options.taskSeconds,
    runningLog: [`starting file import from: ${staged}`],
    run: (endAt) => {
      // F12: an existing name is overwritten without a word.
      const bytes = content === 'iso' ? bytesToKeep(sim.state, file.bytes, storage.volumes.get(volid)?.bytes) : undefined;
      storage.volumes.set(volid, { volid, content: 'iso', format: 'iso', size: file.size, sha256: file.sha256, ctime: Math.floor(endAt / 1000), ...(bytes && { bytes }) });
      return [
        `starting file import from: ${staged}`,
        `target node: ${node}`,
        `target file: ${target}`,
        `file size is: ${file.size}`,
        `command: cp -- ${staged} ${target}`,
        'finished file import successfully',
      ];
    },
  }).upid;
};
