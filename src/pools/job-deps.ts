// What the jobs need of the warm pools (SPEC 30), built by the worker
// (src/worker/pool-deps.ts) and passed in JobDeps like the other
// dependencies (STYLE: never imported as singletons), so tests build them.
import type { PoolMetrics } from '../metrics.js';
import type { CreateResult, CreateSpec, OperationContext } from '../provider/types.js';
import type { RefillOutcome } from './refill.js';
import type { CreateSource, PoolClaim, PoolMember, PoolStore } from './types.js';

/**
 * The provider's claim (src/provider/claim.ts claimVm): renames the
 * member's VM to the claimer, writes the create's sshKeys into the
 * image's default user's authorized_keys and answers the claimer's
 * CreateResult; throws a ClaimLostError when the member's VM is gone or
 * someone else's.
 */
export type ClaimVm = (spec: CreateSpec, claim: PoolClaim, user: string, ctx: OperationContext, hooks?: ClaimHooks) => Promise<CreateResult>;

/** What the create job gives a claim (ClaimRequest): a call once the VM is renamed, and where the registry last saw the name's VM. */
export interface ClaimHooks {
  renamed?: () => Promise<void>;
  knownVmid?: number;
}

export interface PoolJobDeps {
  /** Some pool is configured: every create's result says its origin (absent on a service with none, as before pools). */
  configured: boolean;
  store: PoolStore;
  /**
   * Renames the claimed member to the create (the image's user filled in),
   * calling `hooks.renamed` once the VM carries the claimer's name and mark
   * (ClaimRequest.renamed); throws what isClaimLost knows when the claim failed.
   */
  claim(spec: CreateSpec, claim: PoolClaim, ctx: OperationContext, hooks?: ClaimHooks): Promise<CreateResult>;
  /** Whether `err` is the provider's ClaimLostError: the create goes the cold way. */
  isClaimLost: (err: unknown) => boolean;
  /** The pool's shape's fingerprint now; undefined when the pool is no longer configured. */
  fingerprintOf(pool: string): string | undefined;
  /** Adds a refill of the pool behind callers' jobs (one waits at a time). */
  enqueueRefill(pool: string): Promise<void>;
  /** A member's ordinary delete, then its entry forgotten. */
  drain(member: Pick<PoolMember, 'pool' | 'name' | 'uid'>): Promise<void>;
  /** The pool-refill job: every pool, or the one named. */
  refill(pool: string | undefined): Promise<RefillOutcome[]>;
  /** Claims counted and timed, lost claims counted as misses. */
  metrics?: PoolMetrics;
}

/** The create job's result saying where its VM came from (CreateResult.origin; `source` is the template a clone was made from). */
export type OriginCreateResult = CreateResult & { origin: CreateSource };
