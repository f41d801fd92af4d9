// Lua for a name's lease (SPEC 31), written with the record it belongs to
// in one script, so the lease never disagrees with the desired state. In
// the record (keys.desired): `lease` (JSON: expiresAt, onExpiry, version,
// warnedAt), `leaseTerms` (what the present create asked: ttlSeconds and
// onExpiry, JSON) and `leaseVersion` (the last version handed out, so a
// version is never given twice within a generation). The index
// (keys.leases) is a sorted set of name by expiry (ms): the listing's
// `expiringBefore` and the sweep's backstop read it instead of every record.
import { LuaScript } from '../redis-script.js';

/**
 * `setLease(record, index, name, expiresAt, score, onExpiry, fresh)`
 * writes a lease of a new version (1 when fresh: a new record) and
 * answers its JSON; `dropLease(record, index, name)` answers whether
 * there was one; `applyTerms(record, index, name, terms, expiresAt,
 * score, fresh)` is a create's accept: answers the lease JSON (or '') and
 * what happened: 'set' (new or moved), 'kept' (the same terms as the
 * present create's: a repeat keeps the expiry, a renewal's included),
 * 'clear' (ttl 0 ended one) or 'none'.
 */
export const LEASE_FUNCTIONS = `
local function setLease(record, index, name, expiresAt, score, onExpiry, fresh)
  local version = 1
  if fresh then redis.call('HSET', record, 'leaseVersion', 1) else version = redis.call('HINCRBY', record, 'leaseVersion', 1) end
  local lease = cjson.encode({expiresAt = expiresAt, onExpiry = onExpiry, version = version})
  redis.call('HSET', record, 'lease', lease)
  redis.call('ZADD', index, score, name)
  return lease
end
local function dropLease(record, index, name)
  redis.call('ZREM', index, name)
  return redis.call('HDEL', record, 'lease') == 1
end
local function applyTerms(record, index, name, terms, expiresAt, score, fresh)
  local want = cjson.decode(terms)
  local haveJson = redis.call('HGET', record, 'leaseTerms')
  redis.call('HSET', record, 'leaseTerms', terms)
  local old = redis.call('HGET', record, 'lease')
  if not fresh then
    -- A record from before leases asked for none.
    local have = haveJson and cjson.decode(haveJson) or {ttlSeconds = 0, onExpiry = want.onExpiry}
    if have.ttlSeconds == want.ttlSeconds and have.onExpiry == want.onExpiry then
      if old then return old, 'kept' end
      return '', 'none'
    end
    -- Only onExpiry changed: the same expiry (a renewal's too), a new version.
    if old and have.ttlSeconds == want.ttlSeconds then
      local kept = cjson.decode(old).expiresAt
      return setLease(record, index, name, kept, redis.call('ZSCORE', index, name) or score, want.onExpiry, false), 'set'
    end
  end
  if want.ttlSeconds > 0 then return setLease(record, index, name, expiresAt, score, want.onExpiry, fresh), 'set' end
  if dropLease(record, index, name) then return '', 'clear' end
  return '', 'none'
end`;

/**
 * A renewal (PUT /v1/vms/{name}/lease). KEYS: record, lease index. ARGV:
 * name, new expiresAt (RFC 3339 as toISOString writes it, so strings
 * compare as times), its ms, '1' when it may be earlier than the present
 * expiry (shorten), the onExpiry of a lease started here when the present
 * create recorded none. Answers {'absent'} (no present name), {'expired',
 * the lease's expiresAt} (its expiry stopped the VM: a renewal would only
 * bound a VM that stays stopped, so a create starts it again), {'earlier',
 * the present expiresAt} or {'renewed', lease JSON, generation}. A name
 * with no lease gets one: its create's onExpiry, else the given one.
 */
export const RENEW_LEASE = new LuaScript(`${LEASE_FUNCTIONS}
if redis.call('HGET', KEYS[1], 'state') ~= 'present' then return {'absent'} end
local onExpiry = ARGV[5]
local old = redis.call('HGET', KEYS[1], 'lease')
if old then
  local lease = cjson.decode(old)
  onExpiry = lease.onExpiry
  if lease.expiredAt then return {'expired', lease.expiresAt} end
  if ARGV[4] ~= '1' and ARGV[2] < lease.expiresAt then return {'earlier', lease.expiresAt} end
else
  local terms = redis.call('HGET', KEYS[1], 'leaseTerms')
  if terms then onExpiry = cjson.decode(terms).onExpiry end
end
local lease = setLease(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], onExpiry, false)
return {'renewed', lease, redis.call('HGET', KEYS[1], 'generation')}
`);
