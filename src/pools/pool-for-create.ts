// Which warm pool a create claims from (SPEC 30): a validated create (its
// defaults filled) whose shape is a pool's, asking for nothing a member
// was not made with, among its cluster's pools (SPEC 32). Producer-safe:
// the door decides with it.
import { keysFitFileWrite } from './guest-user.js';
import type { PoolConfig, PoolShape } from './types.js';

/** What of a validated create decides its pool: the shape, what a member cannot have (userData, networkConfig), and `pool`. */
export interface PoolDeciding extends PoolShape {
  userData?: string;
  networkConfig?: string;
  /** A claim writes them through the agent's file-write, which takes at most FILE_WRITE_MAX_CHARS of their base64 (keysFitFileWrite). */
  sshKeys?: readonly string[];
  /** false: the cold way whatever the shape. */
  pool?: boolean;
}

function sameShape(create: PoolDeciding, pool: PoolConfig): boolean {
  return create.image === pool.image && create.cores === pool.cores && create.memoryMiB === pool.memoryMiB && create.diskGiB === pool.diskGiB && create.bridge === pool.bridge && create.vlanTag === pool.vlanTag;
}

/**
 * SPEC 32: the pools whose members live in `cluster` (a pool naming none
 * lives in the first), the only ones a create placed there claims from.
 */
export function poolsInCluster(pools: readonly PoolConfig[], cluster: string, firstCluster: string): PoolConfig[] {
  return pools.filter((pool) => (pool.cluster ?? firstCluster) === cluster);
}

/**
 * The pool the create claims from, or undefined (the cold way): `pool` not
 * false, no userData, no networkConfig (a member's seed had neither),
 * image, sizes, bridge and vlanTag equal (absent = absent), and no node or
 * the pool's node (a pool with no node serves only a create naming none:
 * its members are wherever placement put them). The lease does not
 * matter (it is the name's), nor do sshKeys, which the claim writes,
 * unless they are more than one agent file-write takes.
 */
export function poolForCreate(create: PoolDeciding, pools: readonly PoolConfig[]): PoolConfig | undefined {
  if (create.pool === false || create.userData !== undefined || create.networkConfig !== undefined) return undefined;
  if (!keysFitFileWrite(create.sshKeys)) return undefined;
  return pools.find((pool) => sameShape(create, pool) && (create.node === undefined || create.node === pool.node));
}
