// The refill's decision for one pool (SPEC 30, design "Members' life"):
// which idle members to drain and how many new ones to create, up to a
// target that follows demand. Pure: the action (refill.ts) reads the
// members and the demand and does what this says.
import type { ListedMember, PoolConfig, PoolDemand } from './types.js';

/**
 * Why a member is drained: an idle one too old, of another shape, of a
 * pool no longer configured, or beyond maxIdle; `interrupted`, one a drain
 * took out of the idle set (it has a readyAt but is not idle, nor
 * claimed) whose delete was never accepted (a crash between the two).
 */
export type DrainReason = 'too-old' | 'stale-shape' | 'unconfigured' | 'over-max' | 'interrupted' | 'stuck' | 'unrecorded';

/**
 * A member still creating this long after the refill added it is stuck
 * (its create lost, its MARK_IDLE lost in a Redis failover, a guest that
 * never comes up): drained, so it no longer holds minIdle or maxIdle room.
 * A create's clone and boot take minutes; the create job's own budget ends
 * well before this.
 */
export const STUCK_CREATING_MS = 30 * 60_000;

export interface RefillPlan {
  /** New members to create now. */
  create: number;
  /** Members to delete: idle ones (oldest first) to take out of the idle set first, then interrupted ones. */
  drain: { name: string; reason: DrainReason }[];
}

/** The lead time before any member of the pool was measured: about two cold creates on a host (64 s each). */
export const DEFAULT_LEAD_MS = 120_000;

/**
 * The pool's lead time: the 90th percentile of its last lead times (a
 * member's entry to its idle), so a few slow creates lengthen it and one
 * fast one does not shorten it; DEFAULT_LEAD_MS before any.
 */
export function leadTimeMs(samples: readonly number[]): number {
  if (samples.length === 0) return DEFAULT_LEAD_MS;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil(0.9 * sorted.length) - 1] ?? DEFAULT_LEAD_MS;
}

/**
 * The refill's target for idle + creating members (base stock): minIdle
 * plus the creates that tried to claim within the last lead time (the
 * demand a member ordered now must meet before it is ready), at most
 * maxIdle. Without demand it is minIdle: the pool as before.
 */
export function refillTarget(pool: Pick<PoolConfig, 'minIdle' | 'maxIdle'>, demand: PoolDemand | undefined, now: Date): number {
  if (demand === undefined) return pool.minIdle;
  const since = now.getTime() - leadTimeMs(demand.leadTimesMs);
  const tried = demand.claimTimesMs.filter((at) => at > since && at <= now.getTime()).length;
  return Math.min(pool.maxIdle, pool.minIdle + tried);
}

export interface RefillInput {
  /** The pool's config; undefined: the pool is no longer configured (its members drain). */
  pool: PoolConfig | undefined;
  /** The pool's shape's fingerprint now (src/pools/fingerprint.ts); unused without a config. */
  fingerprint: string | undefined;
  members: readonly ListedMember[];
  /** The pool's lead times and tried claims (the store's demand); absent: the target is minIdle. */
  demand?: PoolDemand;
  now: Date;
}

function readyMs(member: ListedMember): number {
  return Date.parse(member.readyAt ?? member.createdAt);
}

/** Why an idle member must go whatever the counts, or undefined. */
function drainReason(member: ListedMember, pool: PoolConfig, fingerprint: string | undefined, now: Date): DrainReason | undefined {
  if (member.unrecorded === true) return 'unrecorded';
  if (member.fingerprint !== fingerprint) return 'stale-shape';
  if (pool.maxAgeMinutes > 0 && now.getTime() - readyMs(member) > pool.maxAgeMinutes * 60_000) return 'too-old';
  return undefined;
}

/**
 * Members claimed (claimedBy) are the claimers' and count for nothing.
 * Idle ones of another shape or past maxAgeMinutes drain; of the rest,
 * the oldest beyond maxIdle (with the creating ones) drain. New members
 * fill idle + creating of the current shape up to the target (minIdle
 * plus recent demand, refillTarget), never past maxIdle members in all (a
 * creating one of an old shape counts there: it exists until its create
 * ends and it is drained). Idle members beyond a target that fell are
 * kept: they get claimed, or maxAgeMinutes replaces them.
 */
export function decideRefill({ pool, fingerprint, members, demand, now }: RefillInput): RefillPlan {
  const unclaimed = members.filter((member) => member.claimedBy === undefined);
  const idle = unclaimed.filter((member) => member.idle).sort((a, b) => readyMs(a) - readyMs(b));
  const interrupted = unclaimed.filter((member) => !member.idle && (member.readyAt !== undefined || member.drainingSince !== undefined));
  const again = interrupted.map((member) => ({ name: member.name, reason: 'interrupted' as const }));
  const notReady = unclaimed.filter((member) => !member.idle && member.readyAt === undefined && member.drainingSince === undefined);
  const isStuck = (member: ListedMember) => now.getTime() - Date.parse(member.createdAt) > STUCK_CREATING_MS;
  const stuck = notReady.filter(isStuck).map((member) => ({ name: member.name, reason: 'stuck' as const }));
  if (pool === undefined) return { create: 0, drain: [...idle.map((member) => ({ name: member.name, reason: 'unconfigured' as const })), ...stuck, ...again] };

  const drain: RefillPlan['drain'] = [];
  const kept: ListedMember[] = [];
  for (const member of idle) {
    const reason = drainReason(member, pool, fingerprint, now);
    if (reason === undefined) kept.push(member);
    else drain.push({ name: member.name, reason });
  }
  drain.push(...stuck);
  const creating = notReady.filter((member) => !isStuck(member));
  const creatingCurrent = creating.filter((member) => member.fingerprint === fingerprint).length;
  const overMax = Math.min(kept.length, Math.max(0, kept.length + creating.length - pool.maxIdle));
  for (const member of kept.slice(0, overMax)) drain.push({ name: member.name, reason: 'over-max' });

  const keptIdle = kept.length - overMax;
  const wanted = refillTarget(pool, demand, now) - keptIdle - creatingCurrent;
  const room = pool.maxIdle - keptIdle - creating.length;
  return { create: Math.max(0, Math.min(wanted, room)), drain: [...drain, ...again] };
}
