// The lease timers' work (SPEC 31) as the jobs get it (JobDeps.leases):
// the expiry through the registry and the door (src/queue/lease-expiry.ts),
// counted; the warning as a vm.expiring webhook, once per lease version.
import type { LeaseDeps } from '../../jobs/types.js';
import type { LeaseMetrics } from '../metrics.js';
import type { JobDoor } from '../queue/enqueue.js';
import { expireLease } from '../queue/lease-expiry.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import type { JobEvents } from './webhook-events.js';
import { ownerOf } from '../tenants/types.js';

export interface LeaseDepsOptions {
  door: Pick<JobDoor, 'add' | 'ensure'>;
  registry: Pick<DesiredStateRegistry, 'expireLease' | 'markWarned' | 'get'>;
  /** Webhooks (SPEC 27); none configured: the warning only marks the lease warned. */
  events?: Pick<JobEvents, 'expiring'>;
  metrics?: Pick<LeaseMetrics, 'leaseExpired'>;
  now?: () => Date;
}

export function leaseDeps({ door, registry, events, metrics, now = () => new Date() }: LeaseDepsOptions): LeaseDeps {
  return {
    async expire(name, version) {
      const outcome = await expireLease({ door, registry, now }, name, version);
      if (outcome.kind === 'recorded') metrics?.leaseExpired(outcome.action);
      return outcome;
    },
    async warn(name, version, jobId) {
      const record = await registry.get(name);
      const lease = record?.state === 'present' ? record.lease : undefined;
      if (lease === undefined || lease.version !== version || lease.warnedAt !== undefined || lease.expiredAt !== undefined) return { warned: false };
      // In Redis before the mark: a crash in between sends it again under the same delivery id, which adds nothing.
      await events?.expiring(name, jobId, { expiresAt: lease.expiresAt, version, onExpiry: lease.onExpiry }, ownerOf(record));
      const warned = await registry.markWarned(name, version, now());
      return warned ? { warned, expiresAt: lease.expiresAt } : { warned };
    },
  };
}
