// The tenants' hold store (src/tenants) as the sweep's TenantHoldBook
// (SPEC 34): its holds, freed with the guard that keeps the hold of a
// name present with its uid.
import type { TenantHoldStore } from '../tenants/hold-store.js';
import type { TenantHoldBook } from './ports.js';

export function tenantHoldBook(store: Pick<TenantHoldStore, 'list' | 'release'>): TenantHoldBook {
  return {
    async list() {
      return (await store.list()).map(({ name, uid, tenant }) => ({ name, uid, tenant }));
    },
    async free(name, uid) {
      const released = await store.release(name, uid, 'unclaimed');
      return released && { name, uid, tenant: released.tenant };
    },
  };
}
