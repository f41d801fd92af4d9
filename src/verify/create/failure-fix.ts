// What `verify --create` says when its create fails (SPEC 33): the
// provider's reason (it names the template, the storage, the privilege)
// and one line of what to do.
import { TransientError } from '../../errors.js';
import type { CreateStepReport } from './step-clock.js';

export function describeFailure(err: unknown, signal: AbortSignal, steps: readonly CreateStepReport[]): { detail: string; fix: string } {
  const reached = steps.filter((s) => s.step !== 'failed' && s.step !== 'interrupted').at(-1)?.step;
  const after = reached === undefined ? 'before step cloned' : `after step ${reached}`;
  if (signal.aborted) return { detail: `interrupted ${after}`, fix: 'run verify --create again to finish the check' };
  const message = err instanceof Error ? err.message : String(err);
  const detail = `failed ${after}: ${message}`;
  if (reached === 'running') {
    return { detail, fix: "the guest agent reported no address: the template's image must run qemu-guest-agent (proxmox.installGuestAgent installs it from a package mirror) and net0 must get an address (DHCP)" };
  }
  if (/Permission check failed/.test(message)) return { detail, fix: 'grant the privilege it names on the path it names (pve-provisioner verify lists every one the service needs)' };
  if (err instanceof TransientError) return { detail, fix: 'Proxmox did not answer in time or was busy: run verify --create again; if it fails the same way, raise budgets.* for this host' };
  return { detail, fix: 'fix what the message names, then run verify --create again' };
}
