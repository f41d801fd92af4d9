// The pvedaemon slots' Redis steps (SPEC 28), atomic scripts on Redis's
// own clock like the request budget's (budget-script.ts). One sorted set
// per node: each member is one protected call, scored by the moment its
// slot comes free on its own. While its call is pending the holder keeps
// pushing that moment ahead (a lease), so a crashed worker's slots come
// free soon after it stopped; once the call is given up the score is the
// end of its worst case (pvedaemon may still run it).
// redis-semaphore does not fit: it stamps holders with the caller's clock
// and expires every holder by the timeout of whoever asks last
// (docs/decisions.md).
import { LuaScript } from '../redis-script.js';
import type { RedisClient } from '../redis-script.js';

// Numbers that reach Redis go through string.format, as in budget-script.ts.
const CLOCK = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local function us(value) return string.format('%.0f', value) end
local function keepFor(holdUs)
  local ms = math.ceil(holdUs / 1000) + 1000
  if redis.call('PTTL', KEYS[1]) < ms then redis.call('PEXPIRE', KEYS[1], us(ms)) end
end
`;

/** Answers {0} when the slot `id` is taken, else {microseconds until one may be}. */
const TAKE = new LuaScript(`${CLOCK}
local limit = tonumber(ARGV[1])
local hold = tonumber(ARGV[2])
local poll = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', us(now))
if redis.call('ZCARD', KEYS[1]) >= limit then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local free = tonumber(first[2]) - now
  -- Usually an answer frees a slot long before its own expiry: ask again soon.
  if free > poll then free = poll end
  return {math.max(1, math.ceil(free))}
end
redis.call('ZADD', KEYS[1], us(now + hold), ARGV[4])
keepFor(hold)
return {0}
`);

/**
 * The slot `id` comes free in ARGV[2] µs (0: now). A slot already past
 * its moment stays as it is: another call may have it by now, so a late
 * renewal must not bring it back.
 */
const HOLD = new LuaScript(`${CLOCK}
local after = tonumber(ARGV[2])
if after <= 0 then return redis.call('ZREM', KEYS[1], ARGV[1]) end
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) <= now then return 0 end
redis.call('ZADD', KEYS[1], us(now + after), ARGV[1])
keepFor(after)
return 1
`);

export interface SlotShape {
  /** Slots per node, at least 1. */
  limit: number;
  /** How soon to ask again when every slot is held by a call in flight, µs. */
  pollUs: number;
}

/** 0 when the slot `id` was taken (free on its own after `holdUs` unless renewed), else the µs until one may be. */
export async function takeDaemonSlot(redis: RedisClient, key: string, id: string, shape: SlotShape, holdUs: number): Promise<number> {
  const [waitUs] = (await TAKE.run(redis, [key], [shape.limit, Math.ceil(holdUs), shape.pollUs, id])) as [number];
  return waitUs;
}

/** The slot `id` comes free `afterUs` from now (0 or less: at once), unless it already has. */
export async function holdDaemonSlot(redis: RedisClient, key: string, id: string, afterUs: number): Promise<void> {
  await HOLD.run(redis, [key], [id, Math.max(0, Math.ceil(afterUs))]);
}
