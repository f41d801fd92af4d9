// The address pools' store (src/addresses) as the sweep's AddressLeaseBook
// (SPEC 29): its leases, freed with the guard that keeps the lease of a
// name present with its uid, and the configured pools' cidrs.
import type { AddressPoolStore } from '../addresses/address-pool-store.js';
import { inSubnet, ipv4ToNumber, parseCidr } from '../addresses/ipv4.js';
import type { NetworkPoolConfig } from '../config/types.js';
import type { AddressLeaseBook } from './ports.js';

export function addressLeaseBook(store: Pick<AddressPoolStore, 'list' | 'release' | 'leaseOf'>, pools: readonly NetworkPoolConfig[]): AddressLeaseBook {
  const subnets = pools.flatMap((pool) => {
    const subnet = parseCidr(pool.cidr);
    return subnet === undefined ? [] : [{ pool: pool.name, subnet }];
  });
  return {
    async list() {
      return (await store.list()).map(({ name, uid, lease }) => ({ name, uid, pool: lease.pool, address: lease.address }));
    },
    async free(name, uid) {
      const released = await store.release(name, uid, 'unclaimed');
      return released && { name, uid, pool: released.pool, address: released.address };
    },
    poolOf(address) {
      const value = ipv4ToNumber(address);
      return value === undefined ? undefined : subnets.find(({ subnet }) => inSubnet(subnet, value))?.pool;
    },
    async holds(name, uid, address) {
      return (await store.leaseOf(name, uid))?.address === address;
    },
  };
}
