// The keys qemu-server's vmstatus (PVE/QemuServer.pm 2535-2789, read at
// e6352be) sets from the VM's process and config beyond its sizes: the
// QEMU process's `pid`, `serial`, `tags`, and with `$full` what QMP says
// of the running process (`running-machine`, `running-qemu`).
import type { SimVm, VmConfig } from './state.js';

/** The QEMU of the seeds' host (F11: `creation-qemu=11.0.3`); `query-version` of a running VM (versioncb, 2736-2746). */
export const RUNNING_QEMU = '11.0.3';

/** conf_has_serial (2791-2801): any of serial0..serial3 set (Perl truth). */
function hasSerial(config: VmConfig): boolean {
  for (let i = 0; i < 4; i++) {
    const value = config[`serial${i}`];
    if (value !== undefined && value !== '' && value !== 0 && value !== '0') return true;
  }
  return false;
}

/**
 * The process id of a running VM: made up, stable while it runs, another
 * after a restart (vzlist's pid file, 2355-2366; vmstatus 2555).
 */
function qemuPid(vm: SimVm): number {
  const started = Math.floor((vm.startedAt ?? 0) / 1000);
  return 1000 + ((vm.vmid * 7919 + started) % 4_000_000);
}

/**
 * QemuServer/Machine.pm current_from_query_machines (215-233): the machine
 * QEMU runs, with its `+pve<n>` version. A type without a version runs
 * the newest of this QEMU (`pc-q35-11.0`); i440fx is the default.
 */
export function runningMachine(config: VmConfig): string {
  const parts = String(config.machine ?? '').split(',');
  const type = (parts.find((p) => p.startsWith('type='))?.slice('type='.length) ?? parts[0] ?? '').trim();
  const minor = RUNNING_QEMU.split('.').slice(0, 2).join('.');
  if (type === 'q35') return `pc-q35-${minor}+pve0`;
  if (type === '' || type === 'pc' || type === 'i440fx') return `pc-i440fx-${minor}+pve0`;
  return type.includes('+pve') ? type : `${type}+pve0`;
}

/** What vmstatus adds for a VM: `pid` while running (2555), `serial` (2595), `tags` when the config has a value (2597). */
export function vmstatusKeys(vm: SimVm): Record<string, unknown> {
  const keys: Record<string, unknown> = {};
  if (vm.status === 'running') keys.pid = qemuPid(vm);
  if (hasSerial(vm.config)) keys.serial = 1;
  if (typeof vm.config.tags === 'string' && vm.config.tags !== '') keys.tags = vm.config.tags;
  return keys;
}

/** What `$full` adds for a running VM from its QMP (machinecb 2728-2734, versioncb 2736-2746). */
export function qmpKeys(vm: SimVm): Record<string, unknown> {
  if (vm.status !== 'running') return {};
  return { 'running-machine': runningMachine(vm.config), 'running-qemu': RUNNING_QEMU };
}
