// Lua functions of the tenants' door (SPEC 34), for the accept's script
// (src/queue/registry-scripts.ts RECORD_PRESENT), so a create's quotas
// are checked and its hold taken in the same step that records the name:
// 200 creates at once against a quota of 50 accept exactly 50. The keys
// are passed in (the holds, the sums, the rate buckets), all under the
// registry's hash tag on a Cluster (src/redis-keys.ts).
//
// A hold is what one create of `<name> <uid>` counts against its tenant:
// {tenant, vms: 1, cores, memoryMiB, diskGiB}. Taking a hold again (an
// in-place change, a repeat after a failure gave it back) counts only the
// difference from the hold it has. `caller`: the ARGV JSON {name, admin,
// quotas, size}; the sums are per `<tenant> <quota>`.
/** Moves one of a tenant's sums by n, never below 0 (a sum a lost write left short stays at 0); for every script that writes the sums. */
export const SUM_FUNCTIONS = `
local function addToSum(use, field, n)
  if n > 0 then redis.call('HINCRBY', use, field, n)
  elseif n < 0 then
    local sum = tonumber(redis.call('HGET', use, field) or '0') or 0
    if sum + n >= 0 then redis.call('HINCRBY', use, field, n) else redis.call('HSET', use, field, 0) end
  end
end
`;

export const TENANT_FUNCTIONS = `${SUM_FUNCTIONS}
local HELD = {'vms', 'cores', 'memoryMiB', 'diskGiB'}
local function tenantNowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function heldBy(holds, field)
  local raw = redis.call('HGET', holds, field)
  if not raw then return nil end
  return cjson.decode(raw)
end
-- The hold a create of this size takes for owner; pending (an in-place change): no smaller than the hold it has,
-- as the VM keeps its sizes until the change's job has run (SETTLE_HOLD then gives a shrink back).
local function wantedHold(caller, owner, pending)
  local size = caller.size or {}
  local want = {tenant = owner, vms = 1, cores = size.cores or 0, memoryMiB = size.memoryMiB or 0, diskGiB = size.diskGiB or 0}
  if pending and pending.tenant == owner then
    for _, q in ipairs({'cores', 'memoryMiB', 'diskGiB'}) do want[q] = math.max(want[q], pending[q] or 0) end
  end
  return want
end
-- What taking want adds to owner's sums: the difference from the hold the field has, when it is owner's.
local function holdDelta(have, want)
  local delta = {}
  for _, q in ipairs(HELD) do
    local had = (have and have.tenant == want.tenant) and (have[q] or 0) or 0
    delta[q] = want[q] - had
  end
  return delta
end
-- nil when owner's quotas allow delta, else {'quota', quota, use, asked, limit}. Only what grows is checked.
local function overQuota(use, owner, delta, quotas)
  for _, q in ipairs(HELD) do
    local limit = quotas[q]
    if limit and delta[q] > 0 then
      local held = tonumber(redis.call('HGET', use, owner .. ' ' .. q) or '0')
      if held + delta[q] > limit then return {'quota', q, tostring(held), tostring(delta[q]), tostring(limit)} end
    end
  end
  return nil
end
-- The tenant's creates-per-minute bucket now: tokens (up to limit, refilled limit per 60 s) and the time.
local function bucketOf(rate, tenant, limit)
  local now = tenantNowMs()
  local raw = redis.call('HGET', rate, tenant)
  local tokens, last = limit, now
  if raw then
    local a, b = string.match(raw, '^(%S+) (%S+)$')
    tokens, last = tonumber(a) or limit, tonumber(b) or now
  end
  return math.min(limit, tokens + math.max(0, now - last) * limit / 60000), now
end
-- nil when the bucket holds a create, else {'rate', seconds until it does, limit}.
local function overRate(rate, tenant, limit)
  local tokens = bucketOf(rate, tenant, limit)
  if tokens >= 1 then return nil end
  return {'rate', tostring(math.max(1, math.ceil((1 - tokens) * 60 / limit))), tostring(limit)}
end
local function takeToken(rate, tenant, limit)
  local tokens, now = bucketOf(rate, tenant, limit)
  redis.call('HSET', rate, tenant, string.format('%.6f %d', tokens - 1, now))
end
local function addToSums(use, hold, sign)
  for _, q in ipairs(HELD) do addToSum(use, hold.tenant .. ' ' .. q, (hold[q] or 0) * sign) end
end
-- Writes want as the field's hold: the hold it had leaves its tenant's sums, want joins its owner's.
local function writeHold(holds, use, field, have, want)
  if have then addToSums(use, have, -1) end
  addToSums(use, want, 1)
  redis.call('HSET', holds, field, cjson.encode(want))
end
`;
