// The qemu calls that start tasks: clone (F4, F8, F10, F11, F15), resize
// (F20), start (F3), stop and destroy (refused while running).
import { randomUUID } from 'node:crypto';
import { dieError, paramError } from '../answer-error.js';
import { DRIVE_KEY, driveBytes, formatSize, isCdrom, parseDrive, parseSize, printDrive, setDriveOption, storageOf } from '../disks.js';
import { randomMac } from '../mac.js';
import { touched, type SimVm, type VmConfig } from '../state.js';
import { texts } from '../texts.js';
import { assertUnlocked } from './qemu-config.js';
import { flag, param, vmidParam, type Handler, type HandlerContext } from './context.js';

function cloneDisk(value: string, newid: number, index: number, linked: boolean, target: string | undefined): string {
  const drive = parseDrive(value);
  const storage = storageOf(drive.file);
  if (storage === undefined) return value;
  const cloudinit = /vm-\d+-cloudinit$/.test(drive.file);
  const onStorage = target ?? storage;
  if (cloudinit) return printDrive({ file: `${onStorage}:vm-${newid}-cloudinit`, options: drive.options });
  if (isCdrom(drive)) return value;
  const base = drive.file.slice(storage.length + 1);
  const file = linked ? `${storage}:${base}/vm-${newid}-disk-${index}` : `${onStorage}:vm-${newid}-disk-${index}`;
  return printDrive({ file, options: drive.options });
}

function clonedConfig(source: SimVm, ctx: HandlerContext, newid: number, linked: boolean): VmConfig {
  const config: VmConfig = {};
  let diskIndex = 0;
  const target = ctx.params.storage;
  for (const [key, value] of Object.entries(source.config)) {
    if (key === 'template' || key === 'lock') continue;
    if (DRIVE_KEY.test(key) && typeof value === 'string') config[key] = cloneDisk(value, newid, diskIndex++, linked, target);
    else if (/^net\d+$/.test(key) && typeof value === 'string') config[key] = value.replace(/([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}/, randomMac());
    else config[key] = value;
  }
  config.name = ctx.params.name ?? `Copy-of-VM-${String(source.config.name ?? source.vmid)}`;
  // F10: the description given survives verbatim; else the template's is copied (as its tags are, SPEC 11).
  if (ctx.params.description !== undefined) config.description = ctx.params.description;
  config.smbios1 = `uuid=${randomUUID()}`;
  if (config.vmgenid !== undefined) config.vmgenid = randomUUID();
  return config;
}

export const clone: Handler = (ctx) => {
  const { sim } = ctx;
  const node = param(ctx, 'node');
  const source = sim.state.vm(node, vmidParam(ctx));
  const newid = vmidParam(ctx, 'newid');
  const targetNode = ctx.params.target ?? node;
  sim.state.node(targetNode);
  const storage = ctx.params.storage;
  if (storage !== undefined) {
    const found = sim.state.nodes.get(targetNode)?.storages.get(storage);
    if (found === undefined) throw paramError({ storage: texts.noSuchStorage(storage) });
    if (!found.content.includes('images')) throw paramError({ storage: texts.noImages(storage) });
  }
  // F4: synchronous, before any task.
  if (sim.state.vmidTaken(newid)) throw dieError(texts.configExists(newid));
  // Proxmox makes a linked clone of a template unless full=1 (SPEC 13).
  const linked = source.config.template === 1 && !flag(ctx, 'full');
  const vm: SimVm = {
    vmid: newid,
    node: targetNode,
    config: { ...clonedConfig(source, ctx, newid, linked), lock: 'clone' },
    status: 'stopped',
    paused: false,
    cloning: true,
    origin: linked ? 'linked' : 'full',
  };
  sim.state.addVm(vm);
  const disks = Object.keys(source.config).filter((k) => DRIVE_KEY.test(k));
  const task = sim.runTask({
    node,
    type: 'qmclone',
    id: String(source.vmid),
    owner: ctx.owner,
    seconds: sim.options.cloneSeconds,
    runningLog: [`create ${linked ? 'linked' : 'full'} clone of drive ${disks[0] ?? 'scsi0'}`],
    run: () => {
      vm.cloning = false;
      delete vm.config.lock;
      vm.lockUntil = undefined;
      touched(vm);
      return disks.map((d) => `create ${linked ? 'linked' : 'full'} clone of drive ${d} (${String(source.config[d])})`);
    },
    onFail: () => sim.state.removeVm(vm),
  });
  vm.lockUntil = task.endAt;
  return task.upid;
};

export const resize: Handler = (ctx) => {
  const { sim } = ctx;
  const vm = sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  assertUnlocked(vm, ctx);
  const disk = param(ctx, 'disk');
  if (typeof vm.config[disk] !== 'string') throw dieError(texts.diskMissing(disk));
  const sizeText = param(ctx, 'size');
  const relative = sizeText.startsWith('+');
  const amount = parseSize(relative ? sizeText.slice(1) : sizeText);
  return sim.runTask({
    node: vm.node,
    type: 'qmresize',
    id: String(vm.vmid),
    owner: ctx.owner,
    seconds: sim.options.taskSeconds,
    run: () => {
      const drive = parseDrive(String(vm.config[disk]));
      const current = driveBytes(drive);
      const wanted = relative ? current + amount : amount;
      // F20: shrinking fails inside the task; the same size is an OK no-op.
      if (wanted < current) throw new Error(texts.shrinkRefused);
      if (wanted === current) return [];
      vm.config[disk] = printDrive(setDriveOption(drive, 'size', formatSize(wanted)));
      touched(vm);
      return [`  Size of logical volume changed from ${formatSize(current)} to ${formatSize(wanted)}.`];
    },
  }).upid;
};

/** Seconds a start or stop waits for the config lock file a clone holds (PVE's lock_config default). */
const LOCK_WAIT_SECONDS = 10;

/**
 * When a start or stop may begin: after the clone that holds the VM's lock
 * file (F3), or, when that clone outlasts the 10 s wait, never: the task
 * then fails with the lock timeout at the end of its wait.
 */
function lockWait(ctx: HandlerContext, vm: SimVm): { notBefore?: number; timesOut: boolean } {
  const now = ctx.sim.now();
  if (vm.lockUntil === undefined || vm.lockUntil <= now) return { timesOut: false };
  const limit = now + ctx.sim.scaled(LOCK_WAIT_SECONDS);
  return vm.lockUntil > limit ? { notBefore: limit, timesOut: true } : { notBefore: vm.lockUntil, timesOut: false };
}

/** The lock check a start or stop makes once it holds the lock (a clone's lock is waited out, F3). */
function lockedAtRun(vm: SimVm): void {
  if (typeof vm.config.lock === 'string') throw new Error(texts.vmLocked(vm.config.lock));
}

function stillThere(ctx: HandlerContext, vm: SimVm): void {
  if (ctx.sim.state.findVm(vm.node, vm.vmid) !== vm) throw new Error(texts.configMissing(vm.node, vm.vmid));
}

export const start: Handler = (ctx) => {
  const { sim } = ctx;
  const vm = sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  if (vm.config.template === 1) throw dieError("you can't start a vm if it's a template");
  const wait = lockWait(ctx, vm);
  const waits = wait.notBefore !== undefined;
  return sim.runTask({
    node: vm.node,
    type: 'qmstart',
    id: String(vm.vmid),
    owner: ctx.owner,
    seconds: wait.timesOut ? 0 : sim.options.taskSeconds,
    notBefore: wait.notBefore,
    runningLog: waits ? ['trying to acquire lock...'] : [],
    run: (endAt) => {
      if (wait.timesOut) throw new Error(texts.lockTimeout(vm.vmid));
      stillThere(ctx, vm);
      lockedAtRun(vm);
      if (vm.status === 'running') throw new Error(texts.alreadyRunning(vm.vmid));
      vm.status = 'running';
      vm.paused = false;
      vm.startedAt = endAt;
      touched(vm);
      return waits ? ['trying to acquire lock... OK'] : [];
    },
  }).upid;
};

export const stop: Handler = (ctx) => {
  const { sim } = ctx;
  const vm = sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  const wait = lockWait(ctx, vm);
  return sim.runTask({
    node: vm.node,
    type: 'qmstop',
    id: String(vm.vmid),
    owner: ctx.owner,
    seconds: wait.timesOut ? 0 : sim.options.taskSeconds,
    notBefore: wait.notBefore,
    run: () => {
      if (wait.timesOut) throw new Error(texts.lockTimeout(vm.vmid));
      stillThere(ctx, vm);
      if (!flag(ctx, 'skiplock')) lockedAtRun(vm);
      vm.status = 'stopped';
      vm.paused = false;
      vm.startedAt = undefined;
      touched(vm);
      return [];
    },
  }).upid;
};

export const destroy: Handler = (ctx) => {
  const { sim } = ctx;
  const vm = sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  assertUnlocked(vm, ctx);
  if (vm.status === 'running') throw dieError(texts.destroyRunning(vm.vmid));
  vm.config.lock = 'destroyed';
  touched(vm);
  const purge = flag(ctx, 'purge');
  return sim.runTask({
    node: vm.node,
    type: 'qmdestroy',
    id: String(vm.vmid),
    owner: ctx.owner,
    seconds: sim.options.taskSeconds,
    run: () => {
      sim.state.removeVm(vm);
      const removed = Object.entries(vm.config)
        .filter(([k, v]) => DRIVE_KEY.test(k) && typeof v === 'string' && !isCdrom(parseDrive(v)) && storageOf(parseDrive(v).file) !== undefined)
        .map(([, v]) => `Removed disk '${parseDrive(String(v)).file}'`);
      return purge ? [...removed, `purging VM ${vm.vmid} from related configurations..`] : removed;
    },
    onFail: () => {
      delete vm.config.lock;
      touched(vm);
    },
  }).upid;
};
