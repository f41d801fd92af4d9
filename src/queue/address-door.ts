// The address pools at the door (SPEC 29): which pool a validated create
// takes its lease from, refused when the door cannot tell (the nodes its
// VM may land on are on different networks) or when the create brings
// its own networkConfig on a pooled network, and the words a caller sees
// for a pool with no free address. Producer-safe: no worker code.
import { choosePool } from '../addresses/pool-for.js';
import type { AddressLease } from '../addresses/types.js';
import type { NetworkPoolConfig } from '../config/types.js';
import type { CreateJobInput } from '../job-table/create.schema.js';
import type { JobLimits } from '../job-table/fields.js';
import { PoolExhaustedError, ValidationError } from './producer-errors.js';

/** `bridge vmbr1, VLAN 20, 10.0.0.0/24`. */
export function networkInWords(pool: NetworkPoolConfig): string {
  return `bridge ${pool.bridge}${pool.vlanTag === undefined ? '' : `, VLAN ${pool.vlanTag}`}, ${pool.cidr}`;
}

/** The pool of a validated create; undefined on a network without one. Throws ValidationError, naming the field. */
export function poolOfCreate(value: Pick<CreateJobInput, 'node' | 'image' | 'bridge' | 'vlanTag' | 'networkConfig'>, limits: JobLimits): NetworkPoolConfig | undefined {
  const networks = limits.networks;
  if (networks === undefined || networks.pools.length === 0) return undefined;
  const choice = choosePool(value, limits.images[value.image] ?? [], networks);
  if (choice.kind === 'refused') throw new ValidationError([{ field: 'node', message: `must be named: ${choice.message}` }]);
  if (choice.kind === 'none') return undefined;
  if (value.networkConfig !== undefined) {
    const message = `must be absent: the VM's network (${networkInWords(choice.pool)}) has address pool ${choice.pool.name}, which sets its address statically in the seed's network-config`;
    throw new ValidationError([{ field: 'networkConfig', message }]);
  }
  return choice.pool;
}

export function poolExhausted(vmName: string, pool: NetworkPoolConfig | undefined): PoolExhaustedError {
  if (pool === undefined) throw new Error(`the registry answered exhausted for ${vmName}, whose create is on no pool`);
  return new PoolExhaustedError(vmName, pool.name, networkInWords(pool));
}

/** What answers show of a lease: its address and pool. */
export function addressShown(lease: AddressLease | undefined): { address?: string; addressPool?: string } {
  return lease === undefined ? {} : { address: lease.address, addressPool: lease.pool };
}
