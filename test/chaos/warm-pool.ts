// The chaos run's warm pool (SPEC 30, issue 32): every create of the drive
// has the pool's shape and sshKeys of its own name, so it claims an idle
// member at the door when there is one, while workers are SIGKILLed and
// Redis restarts. Read at the end, after the drain, the sweep and the
// pool's refill: no member claimed by two creates and no member VMID under
// two present names; no pool VM leaked (every VM tagged or named as a pool
// VM is an idle or creating member of the store, every idle member's VM is
// there); every claimed VM renamed, its pool tag gone, and the guest's
// authorized_keys holding exactly its claimer's keys; the pool back at
// minIdle or above (the refill's target follows demand: idle members it
// made for the drive's claims stay until claimed or too old), at most
// maxIdle, none creating or claimed.
import type { JobView } from '../../src/client.js';
import { RedisPoolStore } from '../../src/pools/pool-store.js';
import { POOL_MEMBER_PREFIX, type PoolClaim } from '../../src/pools/types.js';
import { hasTag, poolTag } from '../../src/provider/tags.js';
import type { RedisClient } from '../../src/redis-script.js';
import { keys } from '../../src/redis-keys.js';
import type { Desired, SimStateView, SimVmView } from './invariants.js';

export const CHAOS_WARM_POOL = 'chaos';

/** A valid OpenSSH key (test/sim/claim-e2e.test.ts's); each name's own comment makes its keys its own. */
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKo7kRlyCWLgmbAq3UtdA7kkXYKnhS1nAfIiAYVdoBs/';

/** The keys every create of `name` carries (the same each time, so a repeat is no change). */
export function chaosKeys(name: string): string[] {
  return [`${KEY} ${name}@chaos`];
}

/** authorized_keys as a claim writes it: one key a line, each ending in a newline. */
const authorizedKeys = (name: string): string => chaosKeys(name).map((key) => `${key}\n`).join('');

/** The pool on the default image (its template on both simulated nodes, its user `debian`), for the workers and the producer alike. */
export function warmPoolEnv(pool: { minIdle: number; maxIdle: number }): Record<string, string> {
  return {
    PROXMOX_IMAGES: JSON.stringify([{ name: 'debian', templates: { pve1: 9001, pve2: 9002 }, user: 'debian' }]),
    POOLS: JSON.stringify([{ name: CHAOS_WARM_POOL, minIdle: pool.minIdle, maxIdle: pool.maxIdle }]),
  };
}

export interface GuestFiles {
  guestFiles: { vmid: number; node: string; files: Record<string, string> }[];
}

export interface WarmPoolEnd {
  state: SimStateView;
  guests: GuestFiles;
  /** Every job of the run (the vm queue's), as the client saw it. */
  views: Map<string, JobView | undefined>;
  /** The drive's names the registry holds present at the end. */
  present: readonly Desired[];
}

export interface ChaosWarmPool {
  /** Waits until the pool holds minIdle to maxIdle idle members and none creating or claimed; false when it did not within timeoutMs. */
  settle(timeoutMs: number): Promise<boolean>;
  /** The members the registry holds present, for the ordinary invariants (one VM per name, running, its uid). */
  members(): Promise<Desired[]>;
  violations(end: WarmPoolEnd): Promise<{ violations: string[]; claims: number }>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface ClaimData {
  name?: string;
  uid?: string;
  generation?: number;
  claim?: PoolClaim;
}

export function chaosWarmPool(redis: RedisClient, prefix: string, bounds: { minIdle: number; maxIdle: number }, tag: string): ChaosWarmPool {
  const { minIdle, maxIdle } = bounds;
  const settled = (now: { idle: number; creating: number; claimed: number }): boolean => now.idle >= minIdle && now.idle <= maxIdle && now.creating === 0 && now.claimed === 0;
  const store = new RedisPoolStore(redis, prefix);
  const counts = async (): Promise<{ idle: number; creating: number; claimed: number }> => {
    const members = await store.members(CHAOS_WARM_POOL);
    return {
      idle: members.filter((m) => m.idle && m.claimedBy === undefined).length,
      creating: members.filter((m) => !m.idle && m.claimedBy === undefined).length,
      claimed: members.filter((m) => m.claimedBy !== undefined).length,
    };
  };
  const isPoolVm = (vm: SimVmView): boolean => hasTag(vm.config.tags, poolTag(tag)) || (vm.config.name ?? '').startsWith(POOL_MEMBER_PREFIX);

  return {
    async settle(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const now = await counts().catch(() => undefined);
        if (now !== undefined && settled(now)) return true;
        if (Date.now() > deadline) return false;
        await sleep(250);
      }
    },

    async members() {
      const out: Desired[] = [];
      for (const member of await store.members(CHAOS_WARM_POOL)) {
        const [state, uid] = await redis.hmget(keys.desired(prefix, member.name), 'state', 'uid');
        if (state === 'present' || state === 'absent') out.push({ name: member.name, state, ...(uid === null || uid === undefined ? {} : { uid }) });
      }
      return out;
    },

    async violations({ state, guests, views, present }) {
      const found: string[] = [];
      const members = await store.members(CHAOS_WARM_POOL);

      // No member claimed by two creates (two names, or two generations of one).
      const claimers = new Map<string, Set<string>>();
      for (const view of views.values()) {
        const data = view?.job === 'create' ? (view.data as ClaimData) : undefined;
        if (data?.claim === undefined) continue;
        const seen = claimers.get(data.claim.member) ?? new Set<string>();
        seen.add(`${data.name ?? '?'} generation ${data.generation ?? '?'}`);
        claimers.set(data.claim.member, seen);
      }
      for (const [member, by] of claimers) if (by.size > 1) found.push(`${member} claimed ${by.size} times: by ${[...by].join(', ')}`);

      // Every present name whose create took its claim: its VM at the member's VMID, renamed, its keys and only them.
      let claims = 0;
      const namesByVmid = new Map<number, string[]>();
      for (const { name } of present) {
        const [generation, raw] = await redis.hmget(keys.desired(prefix, name), 'generation', 'claim');
        if (raw === null || raw === undefined) continue;
        const claim = JSON.parse(raw) as PoolClaim;
        const job = [...views.values()].find((v) => v?.job === 'create' && v.state === 'completed' && (v.data as ClaimData).name === name && String((v.data as ClaimData).generation) === generation && (v.data as ClaimData).claim?.member === claim.member);
        const origin = (job?.result as { origin?: string } | undefined)?.origin;
        if (origin !== 'pool') continue;
        claims += 1;
        namesByVmid.set(claim.vmid, [...(namesByVmid.get(claim.vmid) ?? []), name]);
        const vm = state.vms.find((v) => v.vmid === claim.vmid);
        if (vm === undefined) {
          found.push(`${name}: claimed ${claim.member} (VM ${claim.vmid}), no VM there`);
          continue;
        }
        if (vm.config.name !== name) found.push(`${name}: claimed VM ${claim.vmid} is named ${vm.config.name ?? '(none)'}`);
        if (isPoolVm(vm)) found.push(`${name}: claimed VM ${claim.vmid} still carries the pool tag (tags ${vm.config.tags ?? ''})`);
        const files = guests.guestFiles.find((g) => g.vmid === claim.vmid)?.files ?? {};
        const written = Object.entries(files).filter(([path]) => path.endsWith('/.ssh/authorized_keys'));
        if (written.length !== 1 || written[0]?.[1] !== authorizedKeys(name)) found.push(`${name}: claimed VM ${claim.vmid}'s authorized_keys ${JSON.stringify(Object.fromEntries(written))}, wanted exactly ${JSON.stringify(authorizedKeys(name))}`);
      }
      for (const [vmid, names] of namesByVmid) if (names.length > 1) found.push(`member VM ${vmid} claimed by present names ${names.join(', ')}`);

      // Keys written into a VM are its name's, and never into a VM still a member.
      for (const { vmid, files } of guests.guestFiles) {
        const vm = state.vms.find((v) => v.vmid === vmid);
        if (vm === undefined) continue;
        const name = vm.config.name ?? '';
        if (isPoolVm(vm)) found.push(`pool VM ${vmid} (${name}) has files written: ${Object.keys(files).join(', ')}`);
        else if (Object.entries(files).some(([path, content]) => path.endsWith('/.ssh/authorized_keys') && content !== authorizedKeys(name))) found.push(`VM ${vmid} (${name}) holds another create's keys`);
      }

      // No pool VM leaked: each is a member the store holds idle or creating, at its VMID; each idle member's VM is there.
      for (const vm of state.vms.filter(isPoolVm)) {
        const member = members.find((m) => m.name === vm.config.name);
        if (member === undefined) found.push(`pool VM ${vm.vmid} (${vm.config.name ?? 'no name'}) leaked: no member of the store`);
        else if (member.claimedBy !== undefined) found.push(`pool VM ${vm.vmid} (${member.name}) still claimed by ${member.claimedBy}`);
        else if (member.vmid !== undefined && member.vmid !== vm.vmid) found.push(`pool VM ${vm.vmid} (${member.name}): the store says VM ${member.vmid}`);
      }
      for (const member of members.filter((m) => m.idle)) {
        const vm = state.vms.find((v) => v.vmid === member.vmid);
        if (vm === undefined || vm.config.name !== member.name) found.push(`idle member ${member.name}: no VM ${member.vmid ?? '(no vmid)'} of that name`);
      }

      // The pool back at minIdle or above (demand's members stay), at most maxIdle.
      const now = await counts();
      if (!settled(now)) found.push(`the pool ended with ${now.idle} idle, ${now.creating} creating, ${now.claimed} claimed; minIdle ${minIdle}, maxIdle ${maxIdle}`);
      return { violations: found, claims };
    },
  };
}
