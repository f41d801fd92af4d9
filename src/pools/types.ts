// Warm pools (SPEC 30): the shapes kept idle, the VMs kept for them and a
// claim of one. Types only; the design is /docs/spec.md 30 and
// docs/decisions.md (warm pools).

/** A configured pool (`pools[i]`), its shape's absent fields filled with a create's defaults. */
export interface PoolConfig {
  /** 1 to 20 of a-z, 0-9 and `-`, starting with a letter; names the pool in member names, answers, metrics and errors. */
  name: string;
  image: string;
  cores: number;
  memoryMiB: number;
  diskGiB: number;
  /** Absent: the node's (or the template's) bridge, as for a create without one. */
  bridge?: string;
  vlanTag?: number;
  /** Absent: the members go where a create without a node would (placement by free memory). */
  node?: string;
  /** The cluster its members live in (SPEC 32); absent: the first cluster. A create claims only from its own cluster's pools. */
  cluster?: string;
  /** Idle members the refill keeps ready. */
  minIdle: number;
  /** The most members (creating, idle) the pool holds; minIdle when absent from config. */
  maxIdle: number;
  /** An idle member older than this is replaced; 0: never. */
  maxAgeMinutes: number;
}

/** The part of a pool a create's spec is compared with, and its fingerprint is made of. */
export type PoolShape = Pick<PoolConfig, 'image' | 'cores' | 'memoryMiB' | 'diskGiB' | 'bridge' | 'vlanTag' | 'node'>;

/** A VM the service keeps for a pool, as `pool:<P>:members` holds it (JSON). */
export interface PoolMember {
  pool: string;
  /** Its registry name: `pvep-pool-<pool>-<n>`. */
  name: string;
  uid: string;
  /** Where its create placed it; absent until the create's clone took a VMID. */
  vmid?: number;
  node?: string;
  /** Its leased address (SPEC 29) or the one its agent reported when it became idle. */
  address?: string;
  /** The shape it was made to (src/pools/fingerprint.ts). */
  fingerprint: string;
  /** RFC 3339: when the refill recorded it. */
  createdAt: string;
  /** RFC 3339: when it became idle (ready and claimable). */
  readyAt?: string;
  /** RFC 3339: when the refill took it, still creating, to drain it (it stayed creating too long); it is never made idle then. */
  drainingSince?: string;
}

/** A claim the accept recorded on the claimer's name and gave its create job (SPEC 30). */
export interface PoolClaim {
  pool: string;
  /** The member's registry name and uid: its VM carries them until the claim renames it. */
  member: string;
  memberUid: string;
  vmid: number;
  node: string;
  /** The member's address when it became idle (a leased one moves to the claimer with the claim). */
  address?: string;
  /** RFC 3339. */
  claimedAt: string;
  /** The claimer's generation that claimed: a job of a later one (an in-place change of the same uid) changes the renamed VM after the claim. */
  generation?: number;
}

/** Where a create's VM came from (SPEC 30): an idle member of a pool, or a clone of its own. */
export type CreateSource = 'pool' | 'cold';

/** The prefix of every member's name; a caller's create of such a name is refused. */
export const POOL_MEMBER_PREFIX = 'pvep-pool-';

export function memberName(pool: string, n: number): string {
  return `${POOL_MEMBER_PREFIX}${pool}-${n}`;
}

/** A member as the store lists it: its entry and, once claimed, who claimed it (the member's record's `claimedBy`). */
export interface ListedMember extends PoolMember {
  idle: boolean;
  /** `<claimer name> <claimer uid>`: claimed, not yet renamed and forgotten. */
  claimedBy?: string;
  /** Its record is not present with its uid (deleted or lost): nothing a claim takes; the refill drains its entry. */
  unrecorded?: true;
}

/** What the refill's target is made of (SPEC 30, src/pools/refill-decide.ts). */
export interface PoolDemand {
  /** The pool's last lead times (ms from a member's entry to its idle), newest first; none before one is measured. */
  leadTimesMs: number[];
  /** When creates tried to claim from the pool (ms, hit or miss), over the last hour. */
  claimTimesMs: number[];
}

/** What marking a member idle did (PoolStore.markIdle). */
export type MarkIdleOutcome = 'idle' | 'handed-over' | 'unusable';

/** A member a claim took: still claimed (not yet renamed), or forgotten (renamed, the claimer's VM now). */
export type HandedOver = 'claimed' | 'forgotten';

/**
 * The pools' Redis state (SPEC 30), every write one script under the
 * service's hash tag (SPEC 25). The claim itself is in the accept's own
 * script (src/queue/registry-scripts.ts RECORD_PRESENT), not here.
 */
export interface PoolStore {
  /** A new member's entry under the pool's next number (not yet idle); its registry record is the refill's to write. */
  addMember(pool: PoolConfig, fingerprint: string, uid: string, now: Date): Promise<PoolMember>;
  /**
   * The member's create ended Running: `idle` (claimable) when its record
   * is present with its uid, unclaimed, and `fingerprint` is still the
   * pool's; `handed-over` when a claim has it (claimedBy, or forgotten
   * once renamed): its VM is the claimer's, its create leaves it alone;
   * `unusable` otherwise (drained).
   */
  markIdle(member: PoolMember, currentFingerprint: string): Promise<MarkIdleOutcome>;
  /** Whether a claim has the member (its record of that uid claimedBy) or had it (entry and record forgotten); undefined: neither. */
  handedOver(member: Pick<PoolMember, 'pool' | 'name' | 'uid'>): Promise<HandedOver | undefined>;
  /**
   * Takes a member to drain it: an idle one out of the idle set, or one
   * still creating (not claimed) marked `drainingSince`, so that its create
   * can no longer make it idle; false when a claim or another drain took
   * it first, or it was taken from the idle set before.
   */
  takeForDrain(pool: string, name: string, now?: Date): Promise<boolean>;
  /** A claimed member the claim renamed: its entry and its registry record go, with no delete job (the VM is the claimer's). */
  forgetClaimed(claim: Pick<PoolClaim, 'pool' | 'member' | 'memberUid'>): Promise<void>;
  /** A member's entry goes (its delete was accepted, or its create failed for good). */
  removeMember(pool: string, name: string): Promise<void>;
  members(pool: string): Promise<ListedMember[]>;
  /** The pool's lead times and recent tried claims: what the refill's target is made of. */
  demand(pool: string, now: Date): Promise<PoolDemand>;
  /** Every pool with a member entry, configured or not (a pool taken out of config drains). */
  poolsWithMembers(): Promise<string[]>;
}
