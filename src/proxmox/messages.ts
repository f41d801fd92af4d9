// Proxmox error texts the provider acts on, matched whole (SPEC 17). Each
// is tested against every fixture so none fires on the wrong text.
import { isApiError } from './api-error.js';

/** F2: missing VM, for GET config, GET status/current and DELETE. */
export const CONFIG_MISSING = /^Configuration file '[^']+' does not exist$/;
/** F4: clone onto a taken VMID. */
export const CONFIG_EXISTS = /^unable to create VM \d+: config file already exists$/;
/**
 * SPEC 23: a clone onto a VMID that a VM on another node holds. Proxmox
 * checks only the local node's file before forking, so pmxcfs refuses the
 * config inside the task (File.pm file_set_contents, memdb.c EEXIST).
 */
export const VMID_HELD_ELSEWHERE = /^close \(rename\) atomic file '[^']*\/qemu-server\/\d+\.conf' failed: File exists$/;
/** SPEC 23: a plain die (500) in Storage.pm storage_config; the storage named in config is not there. */
export const STORAGE_MISSING = /^storage '([^']+)' does not exist$/;
/** SPEC 28: storage.cfg's `disable` (Storage.pm storage_check_enabled, a plain die). */
export const STORAGE_DISABLED = /^storage '([^']+)' is disabled$/;
/** SPEC 28: storage.cfg's `nodes` leave the node out (Storage.pm storage_check_node, a plain die). */
export const STORAGE_NOT_ON_NODE = /^storage '([^']+)' is not available on node '([^']+)'$/;
/** SPEC 28: clone_vm's worker prefixes whatever killed it, e.g. clone_disk's storage_check_enabled. */
export const CLONE_FAILED_PREFIX = /^clone failed: /;
/** SPEC 23: a clone with `target` whose template has a disk on storage that is not shared (Qemu.pm clone_vm). */
export const CLONE_LOCAL_STORAGE = /^can't clone VM to node '([^']+)' \(VM uses local storage\)$/;
/** F7: a write while the VM holds a lock. */
export const VM_LOCKED = /^VM is locked \([a-z-]+\)$/;
export const LOCK_TIMEOUT = /^can't lock file '[^']+' - got timeout$/;
export const NO_WORKER = /^got no worker upid - start worker failed$/;
export const DESTROY_RUNNING = /^VM \d+ is running - destroy failed$/;
/**
 * Audit 7.1: AbstractConfig.pm check_protection, `<what> - protection mode
 * enabled`; destroy_vm says `can't remove VM <vmid>`, a disk's removal
 * `can't remove drive '<key>'`. A plain die, so a 500.
 */
export const PROTECTION_ENABLED = /^(.+) - protection mode enabled$/;
/** F5: agent enabled but not (yet) running in the guest. */
export const AGENT_NOT_RUNNING = /^QEMU guest agent is not running$/;
/** F5: `agent` not enabled in the config. */
export const AGENT_NOT_CONFIGURED = /^No QEMU guest agent configured$/;
/** F5: stopped VM; whole-message match, since `QEMU guest agent is not running` also ends so. */
export const VM_NOT_RUNNING = /^VM \d+ is not running$/;

/** True when err is a Proxmox answer whose message matches pattern. */
export function messageMatches(err: unknown, pattern: RegExp): boolean {
  return isApiError(err) && pattern.test(err.message);
}
