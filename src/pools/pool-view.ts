// What GET /v1/pools, the client's listPools and `pve-provisioner pools`
// show of each configured warm pool (SPEC 30): its shape and bounds, and
// its members counted: idle (claimable), claimed (taken by a create, not
// yet renamed), creating (refilling). Producer-safe.
import type { ListedMember, PoolConfig, PoolStore } from './types.js';

export interface PoolView extends PoolConfig {
  idle: number;
  claimed: number;
  creating: number;
}

export interface PoolList {
  pools: PoolView[];
}

export function countMembers(members: readonly ListedMember[]): Pick<PoolView, 'idle' | 'claimed' | 'creating'> {
  const claimed = members.filter((member) => member.claimedBy !== undefined).length;
  const idle = members.filter((member) => member.idle && member.claimedBy === undefined).length;
  // A member a drain took (readyAt or drainingSince, not idle) is on its way out, not refilling.
  const creating = members.filter((member) => !member.idle && member.claimedBy === undefined && member.readyAt === undefined && member.drainingSince === undefined).length;
  return { idle, claimed, creating };
}

/** Each configured pool in config order, its members read from the store (one read per pool). */
export async function listPoolViews(configs: readonly PoolConfig[], store: Pick<PoolStore, 'members'>): Promise<PoolList> {
  const pools = await Promise.all(configs.map(async (config) => ({ ...config, ...countMembers(await store.members(config.name)) })));
  return { pools };
}
