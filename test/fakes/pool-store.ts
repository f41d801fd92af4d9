// An in-memory PoolStore (src/pools/types.ts) for tests where the store is
// not the thing under test (the refill's action, the create job's pool
// paths, GET /v1/pools). The real one is Redis scripts (src/pools/pool-store.ts).
import type { HandedOver, ListedMember, MarkIdleOutcome, PoolClaim, PoolConfig, PoolDemand, PoolMember, PoolStore } from '../../src/pools/types.js';
import { memberName } from '../../src/pools/types.js';

export class InMemoryPoolStore implements PoolStore {
  readonly entries = new Map<string, ListedMember>();
  private readonly seq = new Map<string, number>();
  /** Members markIdle refuses (as the real one does for a claimed or superseded member). */
  readonly refuseIdle = new Set<string>();
  readonly forgotten: PoolClaim[] = [];

  addMember(pool: PoolConfig, fingerprint: string, uid: string, now: Date): Promise<PoolMember> {
    const n = (this.seq.get(pool.name) ?? 0) + 1;
    this.seq.set(pool.name, n);
    const member: PoolMember = { pool: pool.name, name: memberName(pool.name, n), uid, fingerprint, createdAt: now.toISOString() };
    this.entries.set(member.name, { ...member, idle: false });
    return Promise.resolve(member);
  }

  markIdle(member: PoolMember, currentFingerprint: string): Promise<MarkIdleOutcome> {
    const entry = this.entries.get(member.name);
    if (entry?.claimedBy !== undefined || (entry === undefined && this.forgotten.some((claim) => claim.member === member.name))) return Promise.resolve('handed-over');
    if (entry === undefined || entry.uid !== member.uid || entry.fingerprint !== currentFingerprint || this.refuseIdle.has(member.name)) return Promise.resolve('unusable');
    if (entry.idle) return Promise.resolve('idle');
    if (entry.readyAt !== undefined || entry.drainingSince !== undefined) return Promise.resolve('unusable');
    this.entries.set(member.name, { ...entry, ...member, idle: true, readyAt: new Date().toISOString() });
    return Promise.resolve('idle');
  }

  handedOver(member: Pick<PoolMember, 'pool' | 'name' | 'uid'>): Promise<HandedOver | undefined> {
    const entry = this.entries.get(member.name);
    if (entry !== undefined) return Promise.resolve(entry.uid === member.uid && entry.claimedBy !== undefined ? 'claimed' : undefined);
    return Promise.resolve(this.forgotten.some((claim) => claim.member === member.name && claim.memberUid === member.uid) ? 'forgotten' : undefined);
  }

  takeForDrain(_pool: string, name: string, now = new Date()): Promise<boolean> {
    const entry = this.entries.get(name);
    if (entry?.idle === true) {
      entry.idle = false;
      return Promise.resolve(true);
    }
    if (entry === undefined || entry.readyAt !== undefined || entry.drainingSince !== undefined || entry.claimedBy !== undefined) return Promise.resolve(false);
    entry.drainingSince = now.toISOString();
    return Promise.resolve(true);
  }

  forgetClaimed(claim: Pick<PoolClaim, 'pool' | 'member' | 'memberUid'>): Promise<void> {
    this.forgotten.push(claim as PoolClaim);
    this.entries.delete(claim.member);
    return Promise.resolve();
  }

  removeMember(_pool: string, name: string): Promise<void> {
    this.entries.delete(name);
    return Promise.resolve();
  }

  members(pool: string): Promise<ListedMember[]> {
    return Promise.resolve([...this.entries.values()].filter((m) => m.pool === pool).map((m) => ({ ...m })));
  }

  /** Each pool's demand as a test sets it; none: no lead time measured, no claim tried. */
  readonly demands = new Map<string, PoolDemand>();

  demand(pool: string): Promise<PoolDemand> {
    return Promise.resolve(this.demands.get(pool) ?? { leadTimesMs: [], claimTimesMs: [] });
  }

  poolsWithMembers(): Promise<string[]> {
    return Promise.resolve([...new Set([...this.entries.values()].map((m) => m.pool))]);
  }

  /** A member as the accept's claim leaves it: out of the idle set, its record claimedBy. */
  claim(name: string, claimedBy: string): void {
    const entry = this.entries.get(name);
    if (entry !== undefined) this.entries.set(name, { ...entry, idle: false, claimedBy });
  }
}
