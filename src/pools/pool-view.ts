// What GET /v1/pools, the client's listPools and `pve-provisioner pools`
// show of each configured warm pool (SPEC 30): its shape and bounds, and
// its members counted: idle (claimable: of the current shape), claimed
// (taken by a create, not yet renamed), creating (refilling), and the
// refill's target for idle + creating now (minIdle plus recent demand).
// Producer-safe.
import { shapeFingerprint } from './fingerprint.js';
import { refillTarget } from './refill-decide.js';
import type { ListedMember, PoolConfig, PoolStore } from './types.js';

export interface PoolView extends PoolConfig {
  idle: number;
  claimed: number;
  creating: number;
  /** What the refill fills idle + creating up to now: minIdle plus the claims tried within the pool's lead time, at most maxIdle. */
  target: number;
}

export interface PoolList {
  pools: PoolView[];
}

/**
 * `fingerprint`: the pool's shape now. An idle member of another shape is
 * not claimable (the claim skips it, the refill drains it): on its way
 * out like one a drain took, so neither idle nor creating.
 */
export function countMembers(members: readonly ListedMember[], fingerprint: string): Pick<PoolView, 'idle' | 'claimed' | 'creating'> {
  const claimed = members.filter((member) => member.claimedBy !== undefined).length;
  const idle = members.filter((member) => member.idle && member.claimedBy === undefined && member.fingerprint === fingerprint).length;
  // A member a drain took (readyAt or drainingSince, not idle) is on its way out, not refilling.
  const creating = members.filter((member) => !member.idle && member.claimedBy === undefined && member.readyAt === undefined && member.drainingSince === undefined).length;
  return { idle, claimed, creating };
}

/** Each configured pool in config order, its members and demand read from the store (two reads per pool). */
export async function listPoolViews(configs: readonly PoolConfig[], store: Pick<PoolStore, 'members' | 'demand'>, now = new Date()): Promise<PoolList> {
  const pools = await Promise.all(
    configs.map(async (config) => {
      const [members, demand] = await Promise.all([store.members(config.name), store.demand(config.name, now)]);
      return { ...config, ...countMembers(members, shapeFingerprint(config)), target: refillTarget(config, demand, now) };
    }),
  );
  return { pools };
}
