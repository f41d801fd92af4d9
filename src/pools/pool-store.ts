// The warm pools' Redis state (SPEC 30), PoolStore on the keys of
// src/redis-keys.ts: members added under the pool's next number, marked
// idle once ready, taken out of the idle set to drain, forgotten once a
// claim renamed them. The claim itself is the accept's
// (src/queue/registry-scripts.ts RECORD_PRESENT).
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { DEMAND_WINDOW_MS } from './claim-functions.js';
import { ADD_MEMBER, FORGET_CLAIMED, HANDED_OVER, LEAD_SAMPLES, MARK_IDLE, REMOVE_MEMBER, TAKE_FOR_DRAIN } from './pool-scripts.js';
import { POOL_MEMBER_PREFIX } from './types.js';
import type { HandedOver, ListedMember, MarkIdleOutcome, PoolClaim, PoolConfig, PoolDemand, PoolMember, PoolStore } from './types.js';

function parseMember(json: string): PoolMember | undefined {
  try {
    return JSON.parse(json) as PoolMember;
  } catch {
    return undefined;
  }
}

export class RedisPoolStore implements PoolStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private entryKeys(pool: string): [members: string, idle: string, names: string] {
    return [keys.poolMembers(this.prefix, pool), keys.poolIdle(this.prefix, pool), keys.poolNames(this.prefix)];
  }

  async addMember(pool: PoolConfig, fingerprint: string, uid: string, now: Date): Promise<PoolMember> {
    const head = JSON.stringify({ pool: pool.name, uid, fingerprint, createdAt: now.toISOString() });
    const scriptKeys = [keys.poolSeq(this.prefix, pool.name), keys.poolMembers(this.prefix, pool.name), keys.poolNames(this.prefix)];
    const [, entry = ''] = (await ADD_MEMBER.run(this.redis, scriptKeys, [pool.name, `${POOL_MEMBER_PREFIX}${pool.name}-`, head])) as string[];
    const member = parseMember(entry);
    if (member === undefined) throw new Error(`the pool ${pool.name}'s new member entry is not JSON: ${entry}`);
    return member;
  }

  async markIdle(member: PoolMember, currentFingerprint: string): Promise<MarkIdleOutcome> {
    // A claim renames the member by its VMID and node: one without them is not claimable.
    if (member.vmid === undefined || member.node === undefined) throw new Error(`member ${member.name} has no vmid or node yet: it cannot be idle`);
    const readyAt = member.readyAt === undefined ? new Date() : new Date(member.readyAt);
    const entry = JSON.stringify({ ...member, readyAt: readyAt.toISOString() });
    const scriptKeys = [keys.poolMembers(this.prefix, member.pool), keys.poolIdle(this.prefix, member.pool), keys.desired(this.prefix, member.name), keys.poolLeadTimes(this.prefix, member.pool)];
    // The lead time (SPEC 30): from the refill's entry to ready, what a member takes to come (refill-decide.ts).
    const lead = readyAt.getTime() - Date.parse(member.createdAt);
    const answer = await MARK_IDLE.run(this.redis, scriptKeys, [member.name, member.uid, currentFingerprint, entry, readyAt.getTime(), Number.isFinite(lead) && lead >= 0 ? lead : '']);
    return answer === 1 ? 'idle' : answer === 2 ? 'handed-over' : 'unusable';
  }

  async handedOver(member: Pick<PoolMember, 'pool' | 'name' | 'uid'>): Promise<HandedOver | undefined> {
    const answer = await HANDED_OVER.run(this.redis, [keys.poolMembers(this.prefix, member.pool), keys.desired(this.prefix, member.name)], [member.name, member.uid]);
    return answer === 'claimed' || answer === 'forgotten' ? answer : undefined;
  }

  async takeForDrain(pool: string, name: string, now = new Date()): Promise<boolean> {
    // Whoever removes a member from the idle set owns it (a claim does the same in its script); a creating one is marked.
    const scriptKeys = [keys.poolMembers(this.prefix, pool), keys.poolIdle(this.prefix, pool), keys.desired(this.prefix, name)];
    return (await TAKE_FOR_DRAIN.run(this.redis, scriptKeys, [name, now.toISOString()])) === 1;
  }

  async forgetClaimed(claim: Pick<PoolClaim, 'pool' | 'member' | 'memberUid'>): Promise<void> {
    const scriptKeys = [...this.entryKeys(claim.pool), keys.desired(this.prefix, claim.member), keys.desiredIndex(this.prefix), keys.leases(this.prefix)];
    await FORGET_CLAIMED.run(this.redis, scriptKeys, [claim.member, claim.memberUid, claim.pool]);
  }

  async removeMember(pool: string, name: string): Promise<void> {
    await REMOVE_MEMBER.run(this.redis, this.entryKeys(pool), [name, pool]);
  }

  async members(pool: string): Promise<ListedMember[]> {
    const [entries, idle] = await Promise.all([this.redis.hgetall(keys.poolMembers(this.prefix, pool)), this.redis.zrange(keys.poolIdle(this.prefix, pool), 0, -1)]);
    const idleNames = new Set(idle);
    const members = Object.values(entries)
      .map(parseMember)
      .filter((member): member is PoolMember => member !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
    const heads = await Promise.all(members.map((member) => this.redis.hmget(keys.desired(this.prefix, member.name), 'state', 'uid', 'claimedBy')));
    return members.map((member, i) => {
      const [state, uid, by] = heads[i] ?? [];
      const recorded = state === 'present' && uid === member.uid;
      return { ...member, idle: idleNames.has(member.name), ...(typeof by === 'string' ? { claimedBy: by } : {}), ...(recorded ? {} : { unrecorded: true as const }) };
    });
  }

  async demand(pool: string, now: Date): Promise<PoolDemand> {
    const since = now.getTime() - DEMAND_WINDOW_MS;
    const [leads, tried] = await Promise.all([
      this.redis.lrange(keys.poolLeadTimes(this.prefix, pool), 0, LEAD_SAMPLES - 1),
      this.redis.zrangebyscore(keys.poolClaims(this.prefix, pool), since, '+inf', 'WITHSCORES'),
    ]);
    // WITHSCORES: member, score, member, score...
    const claimTimesMs = tried.filter((_, i) => i % 2 === 1).map(Number);
    return { leadTimesMs: leads.map(Number).filter(Number.isFinite), claimTimesMs: claimTimesMs.filter(Number.isFinite) };
  }

  async poolsWithMembers(): Promise<string[]> {
    return (await this.redis.smembers(keys.poolNames(this.prefix))).sort();
  }
}
