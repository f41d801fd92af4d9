// The warm pools' member names are the service's own (SPEC 30): a caller
// may not create, delete or renew the lease of a `pvep-pool-` name; the
// refill makes and drains them, a claim renames them. Producer-safe.
import type { FieldError } from '../job-table/fields.js';
import { POOL_MEMBER_PREFIX } from './types.js';

/** The error naming `name` when a caller's request names a member, or undefined. */
export function reservedNameProblem(name: unknown): FieldError | undefined {
  if (typeof name !== 'string' || !name.startsWith(POOL_MEMBER_PREFIX)) return undefined;
  return { field: 'name', message: `must not start with "${POOL_MEMBER_PREFIX}": that prefix names the warm pools' VMs (SPEC 30)` };
}
