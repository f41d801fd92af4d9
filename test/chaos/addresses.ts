// The chaos run's address pool (SPEC 29): every create on the pool's
// network takes a lease at the door. Sampled from Redis while the run
// goes on and read once more at the end: no address held by two present
// names at once, no address handed out again before its cooldown ended,
// and after the drain and one sweep every lease held by a present name
// of that uid and no other.
import type { Redis, Cluster } from 'ioredis';
import { keys } from '../../src/redis-keys.js';
import type { AddressLease } from '../../src/addresses/types.js';

export const CHAOS_POOL = 'chaos';
/** 64 addresses, 127.77.0.1 to 127.77.0.64: every probe lands on the simulator's loopback (SPEC 29). */
export const CHAOS_NETWORK = { name: CHAOS_POOL, bridge: 'vmbr0', cidr: '127.77.0.0/24', first: '127.77.0.1', last: '127.77.0.64' };

/** Door's clock against Redis TIME on one machine: what a taking may precede a cooling's end by and not be a reuse. */
const CLOCK_SLACK_MS = 50;

interface SeenLease {
  lease: AddressLease;
  holder: string;
  firstSeenAt: number;
}

interface SeenCooling {
  /** ms from which the address may be handed out again. */
  until: number;
  firstSeenAt: number;
}

export interface ChaosAddresses {
  /** One look at the pool and the names' records. */
  sample(names: readonly string[]): Promise<void>;
  /** Creates the door refused because the pool was full (a 409, expected with more names than addresses). */
  refused: number;
  /** What broke; `final` adds the end state's checks (after the drain and the sweep). */
  violations(names: readonly string[], final: boolean): Promise<string[]>;
  /** Distinct addresses seen held, and leases seen, over the run. */
  seen(): { addresses: number; leases: number };
}

type RedisLike = Redis | Cluster;

export function chaosAddresses(redis: RedisLike, prefix: string, cooldownMs: number): ChaosAddresses {
  const leases = new Map<string, SeenLease>();
  const cooling = new Map<string, SeenCooling[]>();
  const problems: string[] = [];
  const addresses = new Set<string>();

  async function presentAddresses(names: readonly string[]): Promise<Map<string, string[]>> {
    const byAddress = new Map<string, string[]>();
    for (const name of names) {
      const [state, uid, raw] = await redis.hmget(keys.desired(prefix, name), 'state', 'uid', 'address');
      if (state !== 'present' || raw === null || raw === undefined) continue;
      const lease = JSON.parse(raw) as AddressLease;
      if (lease.uid !== uid) problems.push(`${name}: its record's address ${lease.address} is bound to uid ${lease.uid}, the name's is ${uid ?? '(none)'}`);
      byAddress.set(lease.address, [...(byAddress.get(lease.address) ?? []), name]);
    }
    return byAddress;
  }

  return {
    refused: 0,

    async sample(names) {
      const now = Date.now();
      for (const [address, holders] of await presentAddresses(names)) {
        if (holders.length > 1) problems.push(`${address} recorded on present names ${holders.join(', ')} at once`);
      }
      const scores = await redis.zrange(keys.addressCooling(prefix, CHAOS_POOL), 0, -1, 'WITHSCORES');
      for (let i = 0; i + 1 < scores.length; i += 2) {
        const address = scores[i] ?? '';
        const until = Number(scores[i + 1]);
        const known = cooling.get(address) ?? [];
        if (!known.some((c) => c.until === until)) known.push({ until, firstSeenAt: now });
        cooling.set(address, known);
      }
      const held = await redis.hgetall(keys.addressLeases(prefix));
      for (const [holder, raw] of Object.entries(held)) {
        const lease = JSON.parse(raw) as AddressLease;
        if (lease.pool !== CHAOS_POOL) continue;
        addresses.add(lease.address);
        const key = `${holder} ${lease.address} ${lease.takenAt}`;
        if (leases.has(key)) continue;
        leases.set(key, { lease, holder, firstSeenAt: now });
        // A cooling seen before this lease was: a release before its taking, whose cooldown the taking must have waited out.
        for (const before of cooling.get(lease.address) ?? []) {
          const takenAt = Date.parse(lease.takenAt);
          if (before.firstSeenAt < now && takenAt + CLOCK_SLACK_MS < before.until) {
            problems.push(`${lease.address} taken by ${holder} at ${lease.takenAt}, ${before.until - takenAt} ms before its cooldown (${cooldownMs} ms) ended`);
          }
        }
      }
    },

    async violations(names, final) {
      const found = [...problems];
      if (!final) return found;
      const held = await redis.hgetall(keys.addressLeases(prefix));
      const present = new Map<string, string>();
      for (const name of names) {
        const [state, uid] = await redis.hmget(keys.desired(prefix, name), 'state', 'uid');
        if (state === 'present' && uid !== null) present.set(`${name} ${uid}`, name);
      }
      const holders = await redis.hgetall(keys.addressHeld(prefix, CHAOS_POOL));
      for (const [holder, raw] of Object.entries(held)) {
        const lease = JSON.parse(raw) as AddressLease;
        if (!present.has(holder)) found.push(`${lease.address} still leased to ${holder} after the drain and the sweep, and no present name of that uid`);
        if (holders[lease.address] !== holder) found.push(`${lease.address} leased to ${holder} but the pool says ${holders[lease.address] ?? 'nobody'} holds it`);
      }
      for (const [address, holder] of Object.entries(holders)) {
        if (!held[holder]) found.push(`${address} held by ${holder} in the pool with no lease`);
      }
      for (const [holder, name] of present) {
        if (!held[holder]) found.push(`${name} is present with no address lease`);
      }
      return found;
    },

    seen: () => ({ addresses: addresses.size, leases: leases.size }),
  };
}
