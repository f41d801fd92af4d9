// The qemu calls that start tasks, with their checks where Proxmox runs
// them (SPEC 23): clone (qemu-server clone_vm: F4, F8, F10, F11, F15, a
// VMID held on another node, target, shared storage), resize (F20, its
// checks inside the task), start (F3), stop and destroy.
import { randomUUID } from 'node:crypto';
import { dieError, paramError, permissionError } from '../answer-error.js';
import { DRIVE_KEY, driveBytes, formatSize, isCdrom, parseDrive, parseSize, printDrive, setDriveOption, storageOf } from '../disks.js';
import { randomMac } from '../mac.js';
import { isProtected } from '../protection.js';
import { applyPending, freshVmState, touched, type SimVm, type VmConfig } from '../state.js';
import { texts } from '../texts.js';
import { flag, param, perlTrue, refuseRootOnly, vmidParam, type Handler, type HandlerContext } from './context.js';

function cloneDisk(value: string, newid: number, index: number, linked: boolean, storage: string | undefined): string {
  const drive = parseDrive(value);
  const source = storageOf(drive.file);
  if (source === undefined) return value;
  const cloudinit = /vm-\d+-cloudinit$/.test(drive.file);
  const onStorage = storage ?? source;
  if (cloudinit) return printDrive({ file: `${onStorage}:vm-${newid}-cloudinit`, options: drive.options });
  if (isCdrom(drive)) return value;
  const base = drive.file.slice(source.length + 1);
  const file = linked ? `${source}:${base}/vm-${newid}-disk-${index}` : `${onStorage}:vm-${newid}-disk-${index}`;
  return printDrive({ file, options: drive.options });
}

/** clone_vm's $newconf: everything copied but the template flag, disks cloned, MACs new. */
function clonedConfig(source: SimVm, ctx: HandlerContext, newid: number, linked: boolean): VmConfig {
  const config: VmConfig = {};
  let diskIndex = 0;
  const storage = ctx.params.storage;
  for (const [key, value] of Object.entries(source.config)) {
    if (key === 'template' || key === 'lock' || /^unused\d+$/.test(key)) continue;
    if (DRIVE_KEY.test(key) && typeof value === 'string') config[key] = cloneDisk(value, newid, diskIndex++, linked, storage);
    else if (/^net\d+$/.test(key) && typeof value === 'string') config[key] = value.replace(/([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}/, randomMac());
    else config[key] = value;
  }
  config.name = perlTrue(ctx.params.name) ? (ctx.params.name as string) : `Copy-of-VM-${String(source.config.name ?? source.vmid)}`;
  // F10: the description given survives verbatim, but only a true one is set (`if ($param->{description})`).
  if (perlTrue(ctx.params.description)) config.description = ctx.params.description as string;
  config.smbios1 = `uuid=${randomUUID()}`;
  if (config.vmgenid !== undefined) config.vmgenid = randomUUID();
  return config;
}

/**
 * clone_vm's check_storage_access_clone: Datastore.AllocateSpace on each
 * disk's storage (or the `storage` given), and whether every volume sits
 * on shared storage.
 */
function checkStorageAccess(ctx: HandlerContext, source: SimVm): boolean {
  let shared = true;
  for (const { sid, cdrom } of driveStorages(source)) {
    if (ctx.sim.state.storageAnywhere(sid)?.shared !== true) shared = false;
    if (cdrom) continue;
    const checked = ctx.params.storage ?? sid;
    if (ctx.sim.faults.allocateSpaceDenied(checked)) throw permissionError(`/storage/${checked}`, 'Datastore.AllocateSpace');
  }
  return shared;
}

/** The storage of each drive of the VM's config that has one, and whether the drive is a CD-ROM. */
function driveStorages(vm: SimVm): { sid: string; cdrom: boolean }[] {
  return Object.entries(vm.config).flatMap(([key, value]) => {
    if (!DRIVE_KEY.test(key) || typeof value !== 'string') return [];
    const drive = parseDrive(value);
    const sid = storageOf(drive.file);
    return sid === undefined ? [] : [{ sid, cdrom: isCdrom(drive) }];
  });
}

/**
 * The first storage_check_enabled refusal the clone's worker meets:
 * activate_volumes on the source's disks (their own storages, whatever
 * `storage` says), then clone_disk's allocation on `storage` when given.
 */
function diskStorageRefusal(ctx: HandlerContext, source: SimVm, node: string): string | undefined {
  const sids = driveStorages(source).flatMap(({ sid, cdrom }) => (cdrom ? [] : [sid]));
  if (ctx.params.storage !== undefined) sids.push(ctx.params.storage);
  for (const sid of sids) {
    const refused = ctx.sim.state.storageRefusal(node, sid);
    if (refused !== undefined) return refused;
  }
  return undefined;
}

/** A clone's `target` when it names another node than the one asked; undefined otherwise. */
function cloneTarget(ctx: HandlerContext, node: string): string | undefined {
  const target = ctx.params.target;
  return target !== undefined && target !== node && target !== 'localhost' ? target : undefined;
}

/** The `storage` given: storage_check_enabled on this node (does not exist, disabled, not available), images content, later on the target. */
function checkCloneStorage(ctx: HandlerContext, node: string, storage: string, target: string | undefined): void {
  const { state } = ctx.sim;
  const refused = state.storageRefusal(node, storage);
  if (refused !== undefined) throw dieError(refused);
  const found = state.storageAnywhere(storage);
  if (found?.content.includes('images') !== true) throw paramError({ storage: texts.noImages(storage) });
  const refusedThere = target === undefined ? undefined : state.storageRefusal(target, storage);
  if (refusedThere !== undefined) throw dieError(refusedThere);
  if (target !== undefined && !found.shared) throw dieError(texts.cloneTargetStorageNotShared(storage));
}

/** A clone that passed the checks before the fork. */
interface ClonePlan {
  node: string;
  source: SimVm;
  newid: number;
  target: string | undefined;
  linked: boolean;
  /** The task log's first line. */
  started: string;
}

export const clone: Handler = (ctx) => {
  const { sim } = ctx;
  const node = param(ctx, 'node');
  const newid = vmidParam(ctx, 'newid');
  const target = cloneTarget(ctx, node);
  // clone_vm's $load_and_check, run before the fork, in its order.
  if (target !== undefined && !sim.state.nodes.has(target)) throw dieError(texts.noSuchClusterNode(target));
  const storage = ctx.params.storage;
  if (storage !== undefined) checkCloneStorage(ctx, node, storage, target);
  const source = sim.state.vm(node, vmidParam(ctx));
  if (typeof source.config.lock === 'string') throw dieError(texts.vmLocked(source.config.lock));
  // `full` defaults to linked for a template (SPEC 13).
  const full = ctx.params.full !== undefined ? flag(ctx, 'full') : source.config.template !== 1;
  if (storage !== undefined && !full) throw dieError(texts.linkedCloneStorage);
  const sharedVm = checkStorageAccess(ctx, source);
  if (target !== undefined && !sharedVm) throw dieError(texts.cloneTargetLocal(target));
  // F4 looks only at this node's config file.
  if (sim.state.findVm(node, newid) !== undefined) throw dieError(texts.configExists(newid));
  const plan: ClonePlan = { node, source, newid, target, linked: !full, started: texts.cloneStart(source.vmid, newid) };
  return sim.state.vmidTaken(newid) ? vmidElsewhereTask(ctx, plan) : cloneTask(ctx, plan);
};

/** Audit 2b: another node holds the VMID; pmxcfs refuses the temporary config inside the worker. */
function vmidElsewhereTask(ctx: HandlerContext, { node, source, newid, started }: ClonePlan): string {
  return ctx.sim.runTask({
    node,
    type: 'qmclone',
    id: String(source.vmid),
    owner: ctx.owner,
    seconds: 0,
    runningLog: [started],
    run: () => {
      throw new Error(texts.vmidElsewhere(node, newid));
    },
  }).upid;
}

/** The clone's task: the new VM exists at once, locked, with the temporary config until its first disk is copied. */
function cloneTask(ctx: HandlerContext, { node, source, newid, target, linked, started }: ClonePlan): string {
  const { sim } = ctx;
  const now = sim.now();
  const vm: SimVm = {
    vmid: newid,
    node,
    // qemu-server's temporary file until the first disk is copied (audit 12d).
    config: { lock: 'clone', description: 'qmclone temporary file' },
    status: 'stopped',
    paused: false,
    cloning: true,
    origin: linked ? 'linked' : 'full',
    ...freshVmState(now),
  };
  const fullConfig = { ...clonedConfig(source, ctx, newid, linked), lock: 'clone' };
  sim.state.addVm(vm);
  const disks = Object.keys(source.config).filter((k) => DRIVE_KEY.test(k));
  const kind = linked ? 'linked' : 'full';
  const task = sim.runTask({
    node,
    type: 'qmclone',
    id: String(source.vmid),
    owner: ctx.owner,
    seconds: sim.options.cloneSeconds,
    runningLog: [started, `create ${kind} clone of drive ${disks[0] ?? 'scsi0'}`],
    run: (endAt) => {
      // clone_disk activates each disk's storage in the worker: a disabled one fails the task.
      const refused = diskStorageRefusal(ctx, source, node);
      if (refused !== undefined) throw new Error(texts.cloneFailed(refused));
      vm.config = { ...fullConfig };
      delete vm.config.lock;
      vm.cloning = false;
      vm.lockUntil = undefined;
      // move_config_to_node: with `target` the config moves once the disks are done.
      if (target !== undefined) vm.node = target;
      touched(vm, endAt);
      return [started, ...disks.map((d) => `create ${kind} clone of drive ${d} (${String(source.config[d])})`)];
    },
    onFail: (at) => sim.removeVm(vm, at),
  });
  vm.lockUntil = task.endAt;
  writeConfigAtFirstDisk(ctx, vm, fullConfig, now, task.endAt);
  return task.upid;
}

/** The full config (still locked) is written after the first disk; halfway through the task is close enough. */
function writeConfigAtFirstDisk(ctx: HandlerContext, vm: SimVm, fullConfig: VmConfig, now: number, endAt: number): void {
  const firstDiskAt = (now + endAt) / 2;
  // pvestatd samples the temporary config as `VM <newid>` until then (audit 3.3).
  vm.temporaryConfig = { from: now, until: firstDiskAt };
  ctx.sim.tasks.schedule(firstDiskAt, () => {
    if (!vm.cloning) return;
    vm.config = { ...fullConfig };
    // Its tags are live in /cluster/resources from now on, its name at pvestatd's next cycle.
    touched(vm, firstDiskAt);
  });
}

export const resize: Handler = (ctx) => {
  const { sim } = ctx;
  const node = param(ctx, 'node');
  const vmid = vmidParam(ctx);
  refuseRootOnly(ctx, ['skiplock']);
  const disk = param(ctx, 'disk');
  const sizeText = param(ctx, 'size');
  const relative = sizeText.startsWith('+');
  const amount = parseSize(relative ? sizeText.slice(1) : sizeText);
  // resize_vm loads the config and checks everything inside its worker (audit 4b), under
  // lock_config: a clone's lock file is waited out for up to 10 s, as a start waits (F3).
  return lockFileTask(ctx, { node, vmid, type: 'resize', logsWait: true }, (endAt, acquired) => {
    const vm = sim.state.vm(node, vmid);
    lockedAtRun(vm);
    const value = vm.config[disk];
    if (typeof value !== 'string') throw dieError(texts.diskMissing(disk));
    const drive = parseDrive(value);
    if (isCdrom(drive)) throw dieError("you can't resize a cdrom");
    const storage = storageOf(drive.file) ?? '';
    if (sim.faults.allocateSpaceDenied(storage)) throw permissionError(`/storage/${storage}`, 'Datastore.AllocateSpace');
    const current = driveBytes(drive);
    const wanted = relative ? current + amount : amount;
    // F20: shrinking fails inside the task; the same size is an OK no-op.
    if (wanted < current) throw new Error(texts.shrinkRefused);
    if (wanted === current) return acquired;
    vm.config[disk] = printDrive(setDriveOption(drive, 'size', formatSize(wanted)));
    touched(vm, endAt);
    return [...acquired, `  Size of logical volume changed from ${formatSize(current)} to ${formatSize(wanted)}.`];
  });
};

/** Seconds a start or stop waits for the config lock file a clone holds (PVE's lock_config default). */
const LOCK_WAIT_SECONDS = 10;

/**
 * When a task that takes the VM's lock file may begin: after the clone
 * that holds it (F3), or, when that clone outlasts the 10 s wait, never:
 * the task then fails with the lock timeout at the end of its wait.
 */
function lockWait(ctx: HandlerContext, vm: SimVm | undefined): { notBefore?: number; timesOut: boolean } {
  const now = ctx.sim.now();
  if (vm?.lockUntil === undefined || vm.lockUntil <= now) return { timesOut: false };
  const limit = now + ctx.sim.scaled(LOCK_WAIT_SECONDS);
  return vm.lockUntil > limit ? { notBefore: limit, timesOut: true } : { notBefore: vm.lockUntil, timesOut: false };
}

interface LockFileTask {
  node: string;
  vmid: number;
  type: string;
  /** The task log says `trying to acquire lock...` while it waits (resize and start do, stop does not). */
  logsWait: boolean;
}

/**
 * A task that takes the VM's lock file (resize, start, stop): it begins
 * once a clone's lock is gone, or fails with the lock timeout when the
 * clone outlasts the 10 s wait (F3). `run` gets the task's end and the
 * log line the acquired lock adds, if any.
 */
function lockFileTask(ctx: HandlerContext, task: LockFileTask, run: (endAt: number, acquired: string[]) => string[]): string {
  const { sim } = ctx;
  const wait = lockWait(ctx, sim.state.findVm(task.node, task.vmid));
  const logsWait = task.logsWait && wait.notBefore !== undefined;
  return sim.runTask({
    node: task.node,
    type: task.type,
    id: String(task.vmid),
    owner: ctx.owner,
    seconds: wait.timesOut ? 0 : sim.options.taskSeconds,
    notBefore: wait.notBefore,
    runningLog: logsWait ? ['trying to acquire lock...'] : [],
    run: (endAt) => {
      if (wait.timesOut) throw new Error(texts.lockTimeout(task.vmid));
      return run(endAt, logsWait ? ['trying to acquire lock... OK'] : []);
    },
  }).upid;
}

/** check_lock, once the task holds the lock file (a clone's lock is waited out, F3). */
function lockedAtRun(vm: SimVm): void {
  if (typeof vm.config.lock === 'string') throw dieError(texts.vmLocked(vm.config.lock));
}

const START_ROOT_ONLY = ['skiplock', 'stateuri', 'migratedfrom', 'migration_type', 'migration_network', 'targetstorage', 'force-cpu', 'nets-host-mtu'];

/**
 * vm_start: nothing is loaded before the fork; the missing VM, template,
 * lock (`suspended` excepted: the start resumes) and running checks fail
 * the task.
 */
export const start: Handler = (ctx) => {
  const { sim } = ctx;
  const node = param(ctx, 'node');
  const vmid = vmidParam(ctx);
  refuseRootOnly(ctx, START_ROOT_ONLY);
  const upid = lockFileTask(ctx, { node, vmid, type: 'qmstart', logsWait: true }, (endAt, acquired) => {
    const vm = sim.state.vm(node, vmid);
    if (vm.config.template === 1) throw dieError(texts.startTemplate);
    // A `suspended` lock is no obstacle: the start resumes the hibernated VM and drops the lock.
    const resume = vm.config.lock === 'suspended';
    if (!resume) lockedAtRun(vm);
    if (vm.status === 'running') throw dieError(texts.alreadyRunning(vmid));
    if (resume) for (const key of ['lock', 'vmstate', 'runningmachine', 'runningcpu', 'running-nets-host-mtu']) delete vm.config[key];
    applyPending(vm);
    vm.status = 'running';
    vm.paused = false;
    vm.startedAt = endAt;
    touched(vm, endAt);
    sim.guests.started(vm, endAt);
    return [...acquired, ...(resume ? ['Resuming suspended VM'] : [])];
  });
  const endAt = sim.tasks.get(upid)?.endAt;
  if (endAt !== undefined) sim.guests.wakeAtBoot(endAt);
  return upid;
};

/**
 * vm_stop: everything inside the task. _do_vm_stop's check_running first
 * asserts the config file is on this node (a text of its own, not F2),
 * then leaves a VM that is not running alone: no config load, no lock
 * check, the task ends OK.
 */
export const stop: Handler = (ctx) => {
  const { sim } = ctx;
  const node = param(ctx, 'node');
  const vmid = vmidParam(ctx);
  refuseRootOnly(ctx, ['skiplock', 'keepActive', 'migratedfrom']);
  return lockFileTask(ctx, { node, vmid, type: 'qmstop', logsWait: false }, (endAt) => {
    const vm = sim.state.findVm(node, vmid);
    if (vm === undefined) throw dieError(texts.noConfigOnNode(vmid, node));
    if (vm.status !== 'running') return [];
    lockedAtRun(vm);
    vm.status = 'stopped';
    vm.paused = false;
    vm.startedAt = undefined;
    touched(vm, endAt);
    sim.guests.shutdown(vm);
    return [];
  });
};

/** check_lock as destroy_vm makes it: a `suspended` lock does not stop a destroy. */
function destroyLocked(vm: SimVm): string | undefined {
  const lock = vm.config.lock;
  return typeof lock === 'string' && lock !== 'suspended' ? lock : undefined;
}

/**
 * destroy_vm: F2, protection, then the running refusal answer at once
 * ($early_checks, in that order); the lock check runs in the task (audit
 * 5), which repeats protection first and then holds `lock: destroyed`
 * until the config is gone.
 */
export const destroy: Handler = (ctx) => {
  const { sim } = ctx;
  const vm = sim.state.vm(param(ctx, 'node'), vmidParam(ctx));
  refuseRootOnly(ctx, ['skiplock']);
  if (isProtected(vm)) throw dieError(texts.protectionEnabled(`can't remove VM ${vm.vmid}`));
  if (vm.status === 'running') throw dieError(texts.destroyRunning(vm.vmid));
  const wait = lockWait(ctx, vm);
  const purge = flag(ctx, 'purge');
  const lockedNow = wait.notBefore === undefined ? destroyLocked(vm) : undefined;
  // The worker starts at once: it checks the lock, then writes `lock: destroyed`.
  if (wait.notBefore === undefined && lockedNow === undefined) {
    vm.config.lock = 'destroyed';
    touched(vm, sim.now());
  }
  return sim.runTask({
    node: vm.node,
    type: 'qmdestroy',
    id: String(vm.vmid),
    owner: ctx.owner,
    seconds: wait.timesOut || lockedNow !== undefined ? 0 : sim.options.taskSeconds,
    notBefore: wait.notBefore,
    run: (endAt) => {
      if (wait.timesOut) throw new Error(texts.lockTimeout(vm.vmid));
      if (sim.state.findVm(vm.node, vm.vmid) !== vm) throw dieError(texts.configMissing(vm.node, vm.vmid));
      // $early_checks again under the lock: protected since the fork.
      if (isProtected(vm)) throw dieError(texts.protectionEnabled(`can't remove VM ${vm.vmid}`));
      const locked = lockedNow ?? (wait.notBefore !== undefined ? destroyLocked(vm) : undefined);
      if (locked !== undefined) throw dieError(texts.vmLocked(locked));
      sim.removeVm(vm, endAt);
      const removed = Object.entries(vm.config)
        .filter(([k, v]) => DRIVE_KEY.test(k) && typeof v === 'string' && !isCdrom(parseDrive(v)) && storageOf(parseDrive(v).file) !== undefined)
        .map(([, v]) => `Removed disk '${parseDrive(String(v)).file}'`);
      return purge ? [...removed, `purging VM ${vm.vmid} from related configurations..`] : removed;
    },
  }).upid;
};
