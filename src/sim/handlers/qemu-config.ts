// GET and PUT /nodes/{node}/qemu/{vmid}/config ($update_vm_api): an ISO
// needs `media=cdrom`, a write is refused under a lock (F7), tags are
// folded, sorted and `;`-separated (F9, get_unique_tags), attaching a
// CD-ROM adds it to the boot order (F19), and an ISO cdrom gets its size.
import { dieError, paramError } from '../answer-error.js';
import { DRIVE_KEY, formatSize, isCdrom, parseDrive, printDrive, setDriveOption, storageOf, driveOption } from '../disks.js';
import type { PropSchema } from '../formats.js';
import { randomMac } from '../mac.js';
import { heldUntilStart, hotplugRefusal } from '../hotplug.js';
import { refuseProtectedRemoval } from '../protection.js';
import { configAnswer, configDigest, pendingAnswer, touched, type SimVm } from '../state.js';
import { texts } from '../texts.js';
import { flag, param, refuseRootOnly, vmidParam, type Handler, type HandlerContext } from './context.js';

export const getConfig: Handler = (ctx) => configAnswer(ctx.sim.state.vm(param(ctx, 'node'), vmidParam(ctx)), flag(ctx, 'current'));

export const getPending: Handler = (ctx) => pendingAnswer(ctx.sim.state.vm(param(ctx, 'node'), vmidParam(ctx)));

/**
 * A running VM holds what it cannot hotplug for its next start, and what
 * its hotplug refused (the refusal is answered); the same value again
 * clears it (cleanup_pending).
 */
function write(vm: SimVm, key: string, value: string | number): string | undefined {
  const refused = vm.status === 'running' ? hotplugRefusal(key, value, vm.config) : undefined;
  if (refused !== undefined || (vm.status === 'running' && heldUntilStart(key, vm.config))) {
    const pending = (vm.pending ??= {});
    if (vm.config[key] === value) delete pending[key];
    else pending[key] = value;
    return refused;
  }
  if (vm.pending !== undefined) delete vm.pending[key];
  vm.config[key] = value;
  return undefined;
}

/** F7: the text Proxmox answers a write on a locked VM (skiplock is root@pam's only, refused before). */
function assertUnlocked(vm: SimVm): void {
  const lock = vm.config.lock;
  if (typeof lock === 'string') throw dieError(texts.vmLocked(lock));
}

/** get_unique_tags (F9): lowercase, sorted, each once, `;` between. */
function foldTags(text: string): string {
  const tags = text
    .split(/[;,]/)
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
  return [...new Set(tags)].sort().join(';');
}

function schemaFor(properties: Record<string, PropSchema>, key: string): PropSchema | undefined {
  return properties[key] ?? properties[`${key.replace(/\d+$/, '')}[n]`];
}

/** Config values as Proxmox stores them: integers and booleans as numbers, the rest as strings. */
function stored(properties: Record<string, PropSchema>, key: string, value: string): string | number {
  const type = schemaFor(properties, key)?.type;
  if (type === 'integer' || type === 'number') return Number(value);
  if (type === 'boolean') return value === '1' ? 1 : 0;
  return value;
}

function withMac(value: string): string {
  const parts = value.split(',');
  const first = parts[0] ?? '';
  if (first.includes('=') || parts.some((p) => p.startsWith('macaddr='))) return value;
  return [`${first}=${randomMac()}`, ...parts.slice(1)].join(',');
}

function driveValue(ctx: HandlerContext, vm: SimVm, key: string, value: string): string {
  let drive = parseDrive(value);
  const storage = storageOf(drive.file);
  if (storage === undefined) return value;
  const allocate = /^[^:]+:(\d+(?:\.\d+)?)$/.exec(drive.file);
  if (allocate !== null && !isCdrom(drive)) {
    const index = Object.keys(vm.config).filter((k) => DRIVE_KEY.test(k)).length;
    drive = setDriveOption({ file: `${storage}:vm-${vm.vmid}-disk-${index}`, options: drive.options }, 'size', `${allocate[1]}G`);
    return printDrive(drive);
  }
  if (isCdrom(drive) && drive.file.includes(':iso/')) {
    const volume = ctx.sim.state.storage(vm.node, storage).volumes.get(drive.file);
    if (volume === undefined) throw dieError(texts.volumeNotFound(drive.file));
    if (driveOption(drive, 'size') === undefined) drive = setDriveOption(drive, 'size', formatSize(volume.size));
    return printDrive(drive);
  }
  return value;
}

/** $check_drive_param, before the config is even loaded: an ISO volume needs `media=cdrom`. */
function checkIsoMedia(ctx: HandlerContext): void {
  for (const [key, value] of Object.entries(ctx.params)) {
    if (!DRIVE_KEY.test(key)) continue;
    const drive = parseDrive(value);
    if (/^[^:]+:iso\/./.test(drive.file) && !isCdrom(drive)) throw paramError({ [key]: texts.mediaCdromRequired });
  }
}

function appendToBootOrder(vm: SimVm, key: string): void {
  const boot = vm.config.boot;
  if (typeof boot !== 'string') return;
  const match = /(^|,)order=([^,]*)/.exec(boot);
  if (match === null) return;
  const order = (match[2] ?? '').split(';').filter((d) => d !== '');
  if (order.includes(key)) return;
  vm.config.boot = boot.replace(/order=[^,]*/, `order=${[...order, key].join(';')}`);
}

const NOT_CONFIG = new Set(['node', 'vmid', 'digest', 'delete', 'skiplock', 'force', 'revert', 'background_delay']);

export const putConfig: Handler = (ctx) => {
  refuseRootOnly(ctx, ['skiplock']);
  checkIsoMedia(ctx);
  const vm = ctx.sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  const digest = ctx.params.digest;
  if (digest !== undefined && digest !== '' && digest !== configDigest(vm)) throw dieError('checksum mismatch (file change by other user?)');
  assertUnlocked(vm);
  // $update_vm_api runs the deletes before the writes; a refused one dies before anything is written.
  const deletes = (ctx.params.delete ?? '').split(/[,;\s]+/).filter((k) => k !== '');
  for (const key of deletes) refuseProtectedRemoval(vm, key);
  for (const key of deletes) delete vm.config[key];
  const changes: [string, string | number][] = [];
  for (const [key, raw] of Object.entries(ctx.params)) {
    if (NOT_CONFIG.has(key)) continue;
    let value = raw;
    if (key === 'tags') value = foldTags(raw);
    else if (/^net\d+$/.test(key)) value = withMac(raw);
    else if (DRIVE_KEY.test(key)) value = driveValue(ctx, vm, key, raw);
    changes.push([key, stored(ctx.properties, key, value)]);
  }
  const refused: Record<string, string> = {};
  for (const [key, value] of changes) {
    // `# append new CD drives to bootorder`: any CD-ROM written (not a cloud-init drive) that the order lacks.
    const cdrom = DRIVE_KEY.test(key) && isCdrom(parseDrive(String(value))) && !/cloudinit/.test(String(value));
    const refusal = write(vm, key, value);
    if (refusal !== undefined) refused[key] = refusal;
    if (cdrom) appendToBootOrder(vm, key);
  }
  touched(vm, ctx.sim.now());
  // update_vm_api's raise_param_exc after the write: the rest is written, the refused value pending.
  if (Object.keys(refused).length > 0) throw paramError(refused);
  return null;
};
