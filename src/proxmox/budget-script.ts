// The shared Proxmox request budget's Redis steps (SPEC 26), atomic
// scripts on Redis's own clock, so every worker process reads one time.
// Two limits:
// - the pace (GCRA): requests one interval (1/limit s) apart, with a
//   tolerance that lets `burst` of them go early;
// - the ceiling: a log of the requests of the last second, each counted
//   from the moment it may go until one window after its answer came
//   back (while it is in flight, until `inFlightUs` at most, so a
//   crashed worker's slots come free). Proxmox receives a request after
//   its slot was given and before its answer is back, so however long the
//   way there takes, no window of `windowUs` at Proxmox holds more than
//   `limit` of them.
// A fixed window (rate-limiter-flexible's RateLimiterRedis) cannot give
// the ceiling: a second that straddles two windows sees both windows'
// points (docs/decisions.md).
import type { RedisClient } from '../redis-script.js';
import { LuaScript } from '../redis-script.js';

// Numbers that reach Redis go through string.format: Lua prints a
// 16-digit microsecond time as %.14g and would lose its last digits.
const CLOCK = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local function us(value) return string.format('%.0f', value) end
`;

/** Answers {0, slot} when a request may go now (its slot taken), else {microseconds until one may}. */
const TAKE = new LuaScript(`${CLOCK}
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local inFlight = tonumber(ARGV[5])
local poll = tonumber(ARGV[6])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - tolerance - now
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', us(now))
if redis.call('ZCARD', KEYS[2]) >= limit then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  local free = tonumber(first[2]) - now
  -- Past one window: every slot is held by a request still in flight, whose answer frees it.
  if free > window then free = poll end
  if free > wait then wait = free end
end
if wait > 0 then return {math.ceil(wait)} end
local slot = us(tat + interval)
redis.call('SET', KEYS[1], slot, 'PX', us(math.ceil((tat + interval - now) / 1000) + 1000))
redis.call('ZADD', KEYS[2], us(now + inFlight), slot)
redis.call('PEXPIRE', KEYS[2], us(math.ceil(inFlight / 1000) + 1000))
return {0, slot}
`);

/** The answer is back: the slot counts for one more window from now. */
const DONE = new LuaScript(`${CLOCK}
redis.call('ZADD', KEYS[1], us(now + tonumber(ARGV[2])), ARGV[1])
redis.call('PEXPIRE', KEYS[1], us(math.ceil(tonumber(ARGV[3]) / 1000) + 1000))
return 1
`);

export interface BudgetShape {
  /** Requests per second, at least 1. */
  limit: number;
  /** Requests that may go back to back above the pace. */
  burst: number;
  /** The ceiling's window (µs). */
  windowUs: number;
  /** Longest a request in flight holds its slot (µs). */
  inFlightUs: number;
  /** How soon to ask again when every slot is held by a request in flight (µs). */
  pollUs: number;
}

export type BudgetKeys = readonly [pace: string, ceiling: string];

export type SlotAnswer = { slot: string } | { waitUs: number };

export async function takeBudgetSlot(redis: RedisClient, keys: BudgetKeys, shape: BudgetShape): Promise<SlotAnswer> {
  // Rounded up, so `limit` intervals never add up to less than a second.
  const intervalUs = Math.ceil(1_000_000 / shape.limit);
  const args = [intervalUs, intervalUs * shape.burst, shape.limit, shape.windowUs, shape.inFlightUs, shape.pollUs];
  const [waitUs, slot] = (await TAKE.run(redis, keys, args)) as [number, string?];
  return slot === undefined ? { waitUs } : { slot };
}

export async function finishBudgetSlot(redis: RedisClient, keys: BudgetKeys, slot: string, shape: BudgetShape): Promise<void> {
  await DONE.run(redis, [keys[1]], [slot, shape.windowUs, shape.inFlightUs]);
}
