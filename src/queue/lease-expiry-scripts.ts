// Lua for a lease's end (SPEC 31), beside lease-scripts.ts's lease set and renewal: the expiry records its onExpiry intent
// in the same script that finds the lease due and of the timer's version,
// so a renewal either lands first (the expiry does nothing) or after (the
// renewal finds the intent recorded); never a VM ended whose lease moved.
import { LuaScript } from '../redis-script.js';
import { INDEX_FUNCTIONS } from './vm-index-scripts.js';

/**
 * `isoMs(text)`: milliseconds since the epoch of an RFC 3339 time in UTC
 * (`...Z`, as Date.toISOString writes it), nil for any other text.
 * Days from the civil date as in H. Hinnant's days_from_civil.
 */
const ISO_MS = `
local function isoMs(text)
  local y, mo, d, h, mi, s, frac = string.match(text, '^(%d%d%d%d)-(%d%d)-(%d%d)T(%d%d):(%d%d):(%d%d)%.?(%d*)Z$')
  if not y then return nil end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  if mo <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * ((mo + 9) % 12) + 2) / 5) + d - 1
  local days = era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
  local ms = frac ~= '' and tonumber(string.sub(frac .. '00', 1, 3)) or 0
  return ((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60000 + tonumber(s) * 1000 + ms
end
local function leaseOf(record)
  local raw = redis.call('HGET', record, 'lease')
  if redis.call('HGET', record, 'state') ~= 'present' or not raw then return nil end
  local ok, lease = pcall(cjson.decode, raw)
  if ok and type(lease) == 'table' then return lease end
  return nil
end`;

/**
 * KEYS: record, generations, index, lease index, lease timers
 * (keys.leaseTimers). ARGV: name, lease version, now (ms),
 * now (RFC 3339), tombstone seconds, the delete's and the stop's job id
 * prefixes (intentJobIdPrefix). When the name is present with a lease of
 * this version due at now: a `delete` expiry records the name absent as a
 * caller's delete does (RECORD_ABSENT); a `stop` expiry records a new
 * generation of the present name with `stopped` and the lease's
 * `expiredAt`; a delete also forgets the name's recorded timer ids (its
 * timers have run), or a name that never comes back would keep them for
 * ever. Returns {'recorded' | 'existing', action, generation,
 * jobId, uid, expiresAt, tenant or '', cluster or ''} (the record's
 * `cluster` field, SPEC 32; 'existing': this version's stop was recorded
 * before) | {'not-due', ms left} | {'renewed'} | {'gone'}.
 */
export const EXPIRE_LEASE = new LuaScript(`${INDEX_FUNCTIONS}${ISO_MS}
local lease = leaseOf(KEYS[1])
if not lease then return {'gone'} end
if tonumber(lease.version) ~= tonumber(ARGV[2]) then return {'renewed'} end
local due = type(lease.expiresAt) == 'string' and isoMs(lease.expiresAt)
if not due then return {'gone'} end
if due > tonumber(ARGV[3]) then return {'not-due', tostring(due - tonumber(ARGV[3]))} end
local uid = redis.call('HGET', KEYS[1], 'uid') or ''
local action = lease.onExpiry == 'stop' and 'stop' or 'delete'
if lease.expiredAt then
  return {'existing', action, redis.call('HGET', KEYS[1], 'generation'), redis.call('HGET', KEYS[1], 'jobId'), uid, lease.expiresAt, redis.call('HGET', KEYS[1], 'tenant') or '', redis.call('HGET', KEYS[1], 'cluster') or ''}
end
local wasState, wasNode = indexedOf(KEYS[1])
local gen = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
local jobId
if action == 'delete' then
  jobId = ARGV[6] .. gen
  redis.call('HSET', KEYS[1], 'state', 'absent', 'generation', gen, 'updatedAt', ARGV[4], 'jobId', jobId)
  redis.call('HDEL', KEYS[1], 'spec', 'failed', 'changing', 'lease', 'leaseTerms', 'stopped')
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
  redis.call('HDEL', KEYS[5], ARGV[1])
else
  jobId = ARGV[7] .. gen
  lease.expiredAt = ARGV[4]
  redis.call('HSET', KEYS[1], 'generation', gen, 'updatedAt', ARGV[4], 'jobId', jobId, 'stopped', gen, 'lease', cjson.encode(lease))
  redis.call('HDEL', KEYS[1], 'changing')
end
-- The lease index (lease-scripts.ts) holds live leases only: the listing's expiringBefore, the sweep's backstop.
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
reindex(KEYS[1], wasState, wasNode)
return {'recorded', action, tostring(gen), jobId, uid, lease.expiresAt, redis.call('HGET', KEYS[1], 'tenant') or '', redis.call('HGET', KEYS[1], 'cluster') or ''}
`);

/**
 * KEYS: record. ARGV: lease version, now (RFC 3339). Sets the lease's
 * warnedAt when the name is present with a lease of this version not yet
 * warned nor expired. Returns 1 when set.
 */
export const MARK_WARNED = new LuaScript(`${ISO_MS}
local lease = leaseOf(KEYS[1])
if not lease or tonumber(lease.version) ~= tonumber(ARGV[1]) or lease.warnedAt or lease.expiredAt then return 0 end
lease.warnedAt = ARGV[2]
redis.call('HSET', KEYS[1], 'lease', cjson.encode(lease))
return 1
`);
