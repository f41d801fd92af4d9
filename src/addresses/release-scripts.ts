// Lua for the end of an address lease and the pools' figures (SPEC 29),
// on the pools' keys (src/redis-keys.ts addressLeases, addressHeld,
// addressCooling). Every key is passed in KEYS; under a Cluster they
// share the service's hash tag, so each script runs on one slot. Times
// are Redis's own (TIME, ms), the clock the door compares cooling scores
// with, so no process's clock decides when an address is handed out again.
import { LuaScript } from '../redis-script.js';

const NOW_MS = `local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end`;

/**
 * KEYS: the leases hash, the pool's held hash, the pool's cooling set, the
 * name's desired record. ARGV: `<name> <uid>`, the lease JSON as the
 * caller read it (its pool named these keys), the pool's cooldown (ms),
 * the guard, the uid. Guards: `none`; `unclaimed`, nothing while the
 * record is present with that uid (a create of it may be using the
 * lease); `failed`, the same unless the record carries its create's
 * Permanent failure (RECORD_FAILURE; a new create clears it).
 *
 * A release removes the lease, frees the address from `held` if it still
 * names this holder, and makes it rest until now + cooldown: never
 * earlier than a rest it already has (ZADD GT), and not at all while
 * another holder has it. The record's `address` goes too when it is this
 * lease. Cooling entries already due are dropped (an address with none
 * is free). Returns {'released', address, until ms or ''} | {'none'} (no
 * lease) | {'changed'} (not the lease read: read it again) | {'claimed'}.
 */
export const RELEASE_ADDRESS = new LuaScript(`${NOW_MS}
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return {'none'} end
if json ~= ARGV[2] then return {'changed'} end
if ARGV[4] ~= 'none' then
  local head = redis.call('HMGET', KEYS[4], 'state', 'uid', 'failed')
  local claimed = head[1] == 'present' and head[2] == ARGV[5]
  if claimed and not (ARGV[4] == 'failed' and head[3]) then return {'claimed'} end
end
local address = cjson.decode(json).address
redis.call('HDEL', KEYS[1], ARGV[1])
local holder = redis.call('HGET', KEYS[2], address)
if holder == ARGV[1] then redis.call('HDEL', KEYS[2], address) end
local now = nowMs()
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local untilMs = ''
if not holder or holder == ARGV[1] then
  local rest = now + tonumber(ARGV[3])
  redis.call('ZADD', KEYS[3], 'GT', rest, address)
  untilMs = string.format('%d', rest)
end
if redis.call('HGET', KEYS[4], 'address') == json then redis.call('HDEL', KEYS[4], 'address') end
return {'released', address, untilMs}
`);

/**
 * KEYS: held hash and cooling set of each pool, in pairs. Returns, per
 * pool, the addresses held and the addresses resting past now (Redis time).
 */
export const POOL_FIGURES = new LuaScript(`${NOW_MS}
local now = nowMs()
local figures = {}
for i = 1, #KEYS, 2 do
  table.insert(figures, redis.call('HLEN', KEYS[i]))
  table.insert(figures, redis.call('ZCOUNT', KEYS[i + 1], '(' .. now, '+inf'))
end
return figures
`);
