// Tenants' quota holds as the jobs end them (SPEC 34, JobDeps.tenantHolds),
// as address leases end (src/worker/address-deps.ts): a delete's VM gone
// ends its uid's hold, or with no uid the holds of every uid the name's
// record knows (the one it has and the ones it retired); a create that
// failed Permanent ends its own. The release's guard keeps the hold of a
// uid the name is present with again.
import type { TenantHoldDeps } from '../../jobs/types.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import type { HeldTenantHold, TenantHoldStore } from '../tenants/hold-store.js';
import { uidsOfName } from './address-deps.js';

export function tenantHoldDeps(store: Pick<TenantHoldStore, 'holdOf' | 'release' | 'settle'>, registry: Pick<DesiredStateRegistry, 'get'>): TenantHoldDeps {
  return {
    holdOf: (name, uid) => store.holdOf(name, uid),
    async vmGone(name, uid) {
      const uids = uid === undefined ? await uidsOfName(registry, name) : [uid];
      const released = await Promise.all(uids.map((one) => store.release(name, one, 'unclaimed')));
      return released.filter((one): one is HeldTenantHold => one !== undefined);
    },
    createFailed: (name, uid) => store.release(name, uid, 'failed'),
    async settle(name, uid, generation, size) {
      await store.settle(name, uid, generation, size);
    },
  };
}

/** No hold to end and no Redis call for it: for job tests and deps that never see a tenant's create. */
export const NO_TENANT_HOLDS: TenantHoldDeps = {
  holdOf: () => Promise.resolve(undefined),
  vmGone: () => Promise.resolve([]),
  createFailed: () => Promise.resolve(undefined),
  settle: () => Promise.resolve(),
};
