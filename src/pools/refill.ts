// The refill of one pool, and of all of them (SPEC 30, design "Members'
// life"): reads the members, asks the decision (refill-decide.ts), then
// drains (the store's takeForDrain first: whoever takes a member out of
// the idle set owns it, so a claim and a drain never both have one) and
// creates new members as ordinary creates (member-create.ts).
import { randomUUID } from 'node:crypto';
import type { IntentWriters } from '../queue/intent.js';
import { acceptMemberCreate, acceptMemberDelete } from './member-create.js';
import { decideRefill } from './refill-decide.js';
import type { DrainReason } from './refill-decide.js';
import type { ListedMember, PoolConfig, PoolMember, PoolShape, PoolStore } from './types.js';

export interface RefillDeps {
  store: PoolStore;
  /** The registry, the door and the limits members are recorded and added with (as a caller's create). */
  writers: IntentWriters;
  /** src/pools/fingerprint.ts poolFingerprint. */
  fingerprint: (shape: PoolShape) => string;
  now?(): Date;
  log?(line: string): void | Promise<void>;
}

export interface RefillOutcome {
  pool: string;
  /** Member names whose creates were accepted. */
  created: string[];
  /** Claimed members the refill forgot: their claimer's VM is theirs (renamed), its job stopped before forgetting them. */
  forgotten: string[];
  drained: { name: string; reason: DrainReason }[];
  /** Why no (more) member could be created, e.g. the network's address pool is full; absent when all were. */
  refused?: string;
}

/** A member's ordinary delete, then its entry forgotten: a crash between the two leaves the entry, and the next refill drains it again. */
export async function drainMember(deps: Pick<RefillDeps, 'store' | 'writers'>, member: Pick<PoolMember, 'pool' | 'name' | 'uid'>): Promise<void> {
  await acceptMemberDelete(deps.writers, member);
  await deps.store.removeMember(member.pool, member.name);
}

/**
 * A claimed member (claimedBy `<claimer> <uid>`) whose claimer is present
 * with that uid and whose VMID the claimer's record last saw as its own
 * (lastKnown, from a job of the claimer that ended): the VM carries the
 * claimer's name and mark, so the member is forgotten, as the claim's
 * rename would have done had its job not stopped first (SPEC 30). The
 * same when the claimer's record holds no claim of it any more (a
 * stopped name created again dropped it): its VM, if never renamed, is
 * then an orphan of no record, the sweep's to delete.
 */
async function forgetIfRenamed(deps: Pick<RefillDeps, 'store' | 'writers'>, member: ListedMember): Promise<boolean> {
  if (member.claimedBy === undefined || member.unrecorded === true) return false;
  const [claimer = '', uid = ''] = member.claimedBy.split(' ');
  const record = await deps.writers.registry.get(claimer);
  if (record?.state !== 'present' || record.uid !== uid) return false;
  // Seen since the claim: a VMID the claimer's earlier VM had (deleted, the number reused) says nothing.
  const seen = record.lastKnown;
  const renamed = member.vmid !== undefined && seen?.vmid === member.vmid && (record.claim === undefined || Date.parse(seen.at) >= Date.parse(record.claim.claimedAt));
  if (!renamed && record.claim?.member === member.name) return false;
  await deps.store.forgetClaimed({ pool: member.pool, member: member.name, memberUid: member.uid });
  return true;
}

/** One pool: `config` undefined when the pool has members but is no longer configured. */
export async function refillPool(deps: RefillDeps, name: string, config: PoolConfig | undefined): Promise<RefillOutcome> {
  const now = deps.now?.() ?? new Date();
  const fingerprint = config && deps.fingerprint(config);
  const outcome: RefillOutcome = { pool: name, created: [], forgotten: [], drained: [] };
  const listed = await deps.store.members(name);
  for (const member of listed) if (await forgetIfRenamed(deps, member)) outcome.forgotten.push(member.name);
  const members = listed.filter((member) => !outcome.forgotten.includes(member.name));
  // The demand sets the target (SPEC 30): read only for a configured pool.
  const demand = config && (await deps.store.demand(name, now));
  const plan = decideRefill({ pool: config, fingerprint, members, now, ...(demand === undefined ? {} : { demand }) });

  for (const drain of plan.drain) {
    const member = members.find((m) => m.name === drain.name);
    // A member taken out of the idle set by a drain that did not finish is the refill's already.
    const taken = drain.reason === 'interrupted' || (await deps.store.takeForDrain(name, drain.name, now));
    if (member === undefined || !taken) continue;
    await drainMember(deps, member);
    outcome.drained.push(drain);
  }

  for (let i = 0; config !== undefined && fingerprint !== undefined && i < plan.create; i += 1) {
    const member = await deps.store.addMember(config, fingerprint, randomUUID(), now);
    try {
      await acceptMemberCreate(deps.writers, config, member);
    } catch (err) {
      // Not created: its entry must not count as creating. The next refill tries again.
      await deps.store.removeMember(name, member.name);
      outcome.refused = err instanceof Error ? err.message : String(err);
      break;
    }
    outcome.created.push(member.name);
  }
  // Quiet when there was nothing to do: the schedule runs it every 30 s.
  if (outcome.created.length + outcome.drained.length + outcome.forgotten.length > 0 || outcome.refused !== undefined) await deps.log?.(describe(outcome));
  return outcome;
}

function describe({ pool, created, forgotten, drained, refused }: RefillOutcome): string {
  const drains = drained.map((d) => `${d.name} (${d.reason})`);
  const forgot = forgotten.length === 0 ? '' : `; forgot ${forgotten.join(', ')} (renamed to their claimers)`;
  return `pool ${pool}: created ${created.join(', ') || 'none'}; drained ${drains.join(', ') || 'none'}${forgot}${refused === undefined ? '' : `; no more created: ${refused}`}`;
}

/** Every configured pool and every pool with members but no config (it drains); `only` names one of them. */
export async function refillPools(deps: RefillDeps, pools: readonly PoolConfig[], only?: string): Promise<RefillOutcome[]> {
  const names = new Set([...pools.map((pool) => pool.name), ...(await deps.store.poolsWithMembers())]);
  const outcomes: RefillOutcome[] = [];
  for (const name of names) {
    if (only !== undefined && name !== only) continue;
    outcomes.push(await refillPool(deps, name, pools.find((pool) => pool.name === name)));
  }
  return outcomes;
}
