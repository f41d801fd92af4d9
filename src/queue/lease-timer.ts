// The timers of a lease (SPEC 31): the delayed jobs that fire a name's
// expiry (and its `vm.expiring` warning) at their time. The lease-core
// branch calls it where a lease is set or moved (the create's accept, a
// renewal) and where it ends (a delete's accept); this file implements it.
//
// Each timer is a delayed job on the leases queue, added through the door
// under the id of (name, generation, lease version), so a newer lease's
// timer never shares an id with an older one. Setting a newer version
// removes the older version's jobs still waiting (the ids recorded per
// name, swapped in one script: two renewals at once never leave the older
// version recorded over the newer one's ids); one that runs anyway
// does nothing, as the record's lease version differs (the expiry's script,
// lease-scripts.ts), and one that is lost is the sweep's to back up.
import type { Queue } from 'bullmq';
import type { Lease } from '../desired-state.js';
import { leaseJobId } from '../job-table/job-ids.js';
import { LuaScript, type RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import type { JobDoor } from './enqueue.js';

export interface LeaseTimer {
  /** (Re)sets the name's timers for this lease version: a timer of an older version is moved or made void. */
  set(name: string, generation: number, lease: Lease): Promise<void>;
  /** The name has no lease any more (deleted, or created again without one): its timers do nothing. */
  clear(name: string): Promise<void>;
}

export interface LeaseTimerOptions {
  door: Pick<JobDoor, 'later'>;
  /** The leases queue (queues.ts LEASE_QUEUE), whose older timers are removed. */
  queue: Pick<Queue, 'remove'>;
  redis: RedisClient;
  /** The key prefix the queues use (keyPrefixOf: the hash tag on a Cluster). */
  prefix: string;
  /** leases.warnSeconds: the warning's time before the expiry; 0 sends none. */
  warnSeconds: number;
  now?: () => number;
}

/** The timers recorded for a name: whose they are, and their job ids. */
interface Recorded {
  generation: number;
  version: number;
  ids: string[];
}

function parseRecorded(text: string | null): Recorded | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Recorded>;
    return typeof value.generation === 'number' && typeof value.version === 'number' && Array.isArray(value.ids) ? (value as Recorded) : undefined;
  } catch {
    return undefined;
  }
}

function isNewer(a: Recorded, generation: number, version: number): boolean {
  return a.generation > generation || (a.generation === generation && a.version > version);
}

/**
 * KEYS: the timers hash. ARGV: name, the Recorded JSON to write. Writes it
 * unless the one recorded is of a newer (generation, version), as isNewer.
 * Answers {'set', the one replaced or ''} | {'stale', the newer one}.
 */
const RECORD_TIMERS = new LuaScript(`
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  local ok, have = pcall(cjson.decode, raw)
  local want = cjson.decode(ARGV[2])
  if ok and type(have) == 'table' and tonumber(have.generation) and tonumber(have.version) then
    local g, v = tonumber(have.generation), tonumber(have.version)
    if g > want.generation or (g == want.generation and v > want.version) then return {'stale', raw} end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {'set', raw or ''}
`);

export function createLeaseTimer({ door, queue, redis, prefix, warnSeconds, now = Date.now }: LeaseTimerOptions): LeaseTimer {
  const key = keys.leaseTimers(prefix);
  // A job running now cannot be removed (BullMQ answers 0 or throws): it finds its version stale and does nothing.
  const removeAll = async (ids: readonly string[]): Promise<void> => {
    await Promise.all(ids.map((id) => queue.remove(id).catch(() => 0)));
  };
  return {
    async set(name, generation, lease) {
      const before = parseRecorded(await redis.hget(key, name));
      // A set of an older lease arriving late adds nothing: its jobs could only do nothing.
      if (before !== undefined && isNewer(before, generation, lease.version)) return;
      const data = { name, generation, leaseVersion: lease.version };
      const untilExpiry = Date.parse(lease.expiresAt) - now();
      const ids = [leaseJobId('lease-expiry', name, generation, lease.version)];
      await door.later('lease-expiry', data, untilExpiry);
      if (warnSeconds > 0 && untilExpiry > 0 && lease.warnedAt === undefined && lease.expiredAt === undefined) {
        await door.later('lease-warning', data, untilExpiry - warnSeconds * 1000);
        ids.push(leaseJobId('lease-warning', name, generation, lease.version));
      }
      // Another set may have run since the read above: the swap decides which ids are void, ours or the replaced ones.
      const [kind, other = ''] = (await RECORD_TIMERS.run(redis, [key], [name, JSON.stringify({ generation, version: lease.version, ids } satisfies Recorded)])) as string[];
      const newer = kind === 'stale' ? parseRecorded(other) : undefined;
      if (newer !== undefined) await removeAll(ids.filter((id) => !newer.ids.includes(id)));
      else await removeAll((parseRecorded(other === '' ? null : other)?.ids ?? []).filter((id) => !ids.includes(id)));
    },
    async clear(name) {
      const before = parseRecorded(await redis.hget(key, name));
      await redis.hdel(key, name);
      if (before !== undefined) await removeAll(before.ids);
    },
  };
}

/** The job id of the expiry timer recorded for this lease version of the name (the sweep's backstop asks after it); undefined when none is. */
export async function recordedExpiryTimer(redis: RedisClient, prefix: string, name: string, version: number): Promise<string | undefined> {
  const recorded = parseRecorded(await redis.hget(keys.leaseTimers(prefix), name));
  if (recorded === undefined || recorded.version !== version) return undefined;
  return recorded.ids.find((id) => id.startsWith('lease-expiry-'));
}
