// The timers of a lease (SPEC 31): the delayed jobs that fire a name's
// expiry (and its `vm.expiring` warning) at their time. INTERFACE ONLY in
// lease-base: the lease-expiry branch implements it; the lease-core branch
// calls it where a lease is set or moved (the create's accept, a renewal)
// and where it ends (a delete's accept).
import type { Lease } from '../desired-state.js';

export interface LeaseTimer {
  /** (Re)sets the name's timers for this lease version: a timer of an older version is moved or made void. */
  set(name: string, generation: number, lease: Lease): Promise<void>;
  /** The name has no lease any more (deleted, or created again without one): its timers do nothing. */
  clear(name: string): Promise<void>;
}
