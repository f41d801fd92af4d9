// A lease's expiry (SPEC 31), as the expiry job and the sweep's backstop
// both run it: the registry records the lease's onExpiry intent (a delete,
// or a stop) in the script that finds the lease due and of this version,
// then the door adds its job under the id the registry gave it, or makes
// sure of it when it was recorded before: the intent path a caller's
// delete takes (intent.ts), so a newer intent on the name supersedes it
// and one job per name at a time holds. Producer-safe: no worker code.
import type { JobDoor } from './enqueue.js';
import { ownerField } from '../tenants/types.js';
import type { DesiredStateRegistry, ExpiryOutcome } from './registry.js';

export interface LeaseExpiryWriters {
  door: Pick<JobDoor, 'add' | 'ensure'>;
  registry: Pick<DesiredStateRegistry, 'expireLease'>;
  now?: () => Date;
}

/** Records and enqueues the expiry of the name's lease of this version, when it is due; the outcome says what was found. */
export async function expireLease({ door, registry, now = () => new Date() }: LeaseExpiryWriters, name: string, version: number): Promise<ExpiryOutcome> {
  const outcome = await registry.expireLease(name, version, now());
  if (outcome.kind !== 'recorded' && outcome.kind !== 'existing') return outcome;
  // SPEC 32: a delete runs where the name's VM is, though the name be created again in another cluster before it runs.
  const where = outcome.action === 'delete' && outcome.cluster !== undefined ? { cluster: outcome.cluster } : {};
  const data = { name, ...(outcome.uid === '' ? {} : { uid: outcome.uid }), generation: outcome.generation, expiredAt: outcome.expiresAt, leaseVersion: version, ...ownerField(outcome), ...where };
  // At the head of the vm queue: the VM must go within the lease's bound, not after every create waiting (SPEC 31).
  if (outcome.kind === 'recorded') await door.add(outcome.action, data, { recorded: outcome.jobId }, 'next');
  else await door.ensure(outcome.action, data, outcome.jobId, 'next');
  return outcome;
}
