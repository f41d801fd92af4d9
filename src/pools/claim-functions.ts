// Lua that claims a warm pool's idle member (SPEC 30), included in the
// script that records a name present (src/queue/registry-scripts.ts
// RECORD_PRESENT), so the member leaves the idle set in the same step that
// records its claimer: no member is claimed twice, whatever runs at once.
// Every key is the pool's (KEYS) or derived from the claimer's record key
// `<base>:desired:<name>` (the member's record, an address pool's held
// hash), so all share the service's hash tag on a Cluster (SPEC 25).

/**
 * `takeIdleMember(idle, members, base, fingerprint)`: the oldest-ready
 * member of the idle set whose entry has `fingerprint` (others are left
 * for the drain), a VMID and node, and whose record is present with its
 * uid and not claimed; removed from the idle set. Answers the member's
 * entry (a table) and its record's key, or nil when there is none.
 *
 * `moveMemberLease(leases, base, member, holder, uid)`: the member's
 * address lease (`<member> <memberUid>`, SPEC 29) becomes `holder`'s, its
 * uid the claimer's, and its address held by `holder`; the member's record
 * loses its `address`. Answers the moved lease's JSON, or nil (no lease).
 *
 * `writeClaim(member, record, pool, claimerRecord, claimer, uid, generation, now)`:
 * the claimer's record `claim` (with the claimer's generation that
 * claimed) and the member's `claimedBy` (`<claimer> <claimer uid>`: the
 * claim holds across the claimer's new generations of that uid); answers
 * the PoolClaim JSON.
 *
 * `countDemand(claims, holder, at)`: a create tried to claim (hit or
 * miss) at `at` ms: `holder` (`<claimer> <uid>`) is in the pool's demand
 * set at that time, and what is older than DEMAND_WINDOW_MS goes; the
 * refill's target reads it (src/pools/refill-decide.ts).
 */
/** How far back the demand set keeps tried claims: far longer than any lead time. */
export const DEMAND_WINDOW_MS = 3_600_000;

export const CLAIM_FUNCTIONS = `
local function takeIdleMember(idle, members, base, fingerprint)
  local from = 0
  while true do
    local names = redis.call('ZRANGE', idle, from, from + 31)
    if #names == 0 then return nil end
    for _, name in ipairs(names) do
      local json = redis.call('HGET', members, name)
      local ok, member = false, nil
      if json then ok, member = pcall(cjson.decode, json) end
      if ok and type(member) == 'table' and member.fingerprint == fingerprint and member.vmid and member.node then
        local record = base .. ':desired:' .. name
        local head = redis.call('HMGET', record, 'state', 'uid', 'claimedBy')
        if head[1] == 'present' and head[2] == member.uid and not head[3] then
          redis.call('ZREM', idle, name)
          return member, record
        end
      end
    end
    from = from + #names
  end
end
local function moveMemberLease(leases, base, member, record, holder, uid)
  local from = member.name .. ' ' .. member.uid
  local json = redis.call('HGET', leases, from)
  if not json then return nil end
  local uidText = '"uid":' .. cjson.encode(member.uid)
  local first, last = string.find(json, uidText, 1, true)
  if not first then return nil end
  local moved = string.sub(json, 1, first - 1) .. '"uid":' .. cjson.encode(uid) .. string.sub(json, last + 1)
  local lease = cjson.decode(json)
  redis.call('HDEL', leases, from)
  redis.call('HSET', leases, holder, moved)
  redis.call('HSET', base .. ':address-pool:' .. lease.pool .. ':held', lease.address, holder)
  if redis.call('HGET', record, 'address') == json then redis.call('HDEL', record, 'address') end
  return moved
end
local function writeClaim(member, record, pool, claimerRecord, claimer, uid, generation, now)
  local claim = {pool = pool, member = member.name, memberUid = member.uid, vmid = member.vmid, node = member.node, address = member.address, claimedAt = now, generation = tonumber(generation)}
  local json = cjson.encode(claim)
  redis.call('HSET', claimerRecord, 'claim', json)
  redis.call('HSET', record, 'claimedBy', claimer .. ' ' .. uid)
  return json
end
local function countDemand(claims, holder, at)
  redis.call('ZADD', claims, at, holder)
  redis.call('ZREMRANGEBYSCORE', claims, '-inf', '(' .. (at - ${DEMAND_WINDOW_MS}))
  redis.call('PEXPIRE', claims, ${DEMAND_WINDOW_MS})
end`;
