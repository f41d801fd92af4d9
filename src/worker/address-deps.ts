// Address leases as the jobs end them (SPEC 29, JobDeps.addresses): a
// delete's VM gone ends its uid's lease, or with no uid the leases of
// every uid the name's record knows (the one it has and the ones it
// retired), as the provider's delete without a uid removes every VM of
// the name; a create that failed Permanent ends its own. The release's
// guard keeps the lease of a uid the name is present with again.
import type { AddressLeaseDeps } from '../../jobs/types.js';
import type { AddressPoolStore, ReleasedAddress } from '../addresses/address-pool-store.js';
import type { DesiredStateRegistry } from '../queue/registry.js';

/** Every uid the name's record knows: the one it has and the ones it retired. */
export async function uidsOfName(registry: Pick<DesiredStateRegistry, 'get'>, name: string): Promise<string[]> {
  const record = await registry.get(name);
  const uids = [record?.uid, ...(record?.retiredUids ?? [])].filter((uid): uid is string => uid !== undefined);
  return [...new Set(uids)];
}

export function addressLeaseDeps(store: Pick<AddressPoolStore, 'leaseOf' | 'release'>, registry: Pick<DesiredStateRegistry, 'get'>): AddressLeaseDeps {
  return {
    leaseOf: (name, uid) => store.leaseOf(name, uid),
    async vmGone(name, uid) {
      const uids = uid === undefined ? await uidsOfName(registry, name) : [uid];
      const released = await Promise.all(uids.map((one) => store.release(name, one, 'unclaimed')));
      return released.filter((one): one is ReleasedAddress => one !== undefined);
    },
    createFailed: (name, uid) => store.release(name, uid, 'failed'),
  };
}

/** No pool configured: no lease to end, and no Redis call for it in any job (the sweep frees a lease a removed pool left). */
export const NO_ADDRESS_POOLS: AddressLeaseDeps = {
  leaseOf: () => Promise.resolve(undefined),
  vmGone: () => Promise.resolve([]),
  createFailed: () => Promise.resolve(undefined),
};
