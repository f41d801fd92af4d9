// A VM's `protection` flag (audit 7.1): AbstractConfig.pm check_protection
// dies `<what> - protection mode enabled`, a plain 500, where qemu-server
// asks it: destroy_vm's early checks, and $update_vm_api's removal of a
// disk, an unused disk or the saved state. A clone copies the flag.
import { dieError } from './answer-error.js';
import { DRIVE_KEY, parseDrive } from './disks.js';
import type { SimVm } from './state.js';
import { texts } from './texts.js';

/** Perl truth of the config's `protection` (stored 0 or 1). */
export function isProtected(vm: SimVm): boolean {
  const value = vm.config.protection;
  return value !== undefined && value !== 0 && value !== '0' && value !== '';
}

/**
 * check_protection in $update_vm_api's delete loop. Protection is read as
 * it stood before the request: a `delete` of `protection` in the same
 * request is only pending until the loop ends.
 */
export function refuseProtectedRemoval(vm: SimVm, key: string): void {
  const value = vm.config[key];
  if (value === undefined || !isProtected(vm)) return;
  if (/^unused\d+$/.test(key)) throw dieError(texts.protectionEnabled(`can't remove unused disk '${parseDrive(String(value)).file}'`));
  if (key === 'vmstate') throw dieError(texts.protectionEnabled(`can't remove vmstate '${String(value)}'`));
  if (DRIVE_KEY.test(key)) throw dieError(texts.protectionEnabled(`can't remove drive '${key}'`));
}
