// Lua for the end of a tenant's quota hold (SPEC 34), on the tenants'
// keys (src/redis-keys.ts tenantHolds, tenantUse). The accept's script
// (RECORD_PRESENT) takes a hold with the record; this gives it back when
// the VM of that name and uid is gone, at the moments an address lease
// ends (SPEC 29), with the same guards as RELEASE_ADDRESS. Every key is in
// KEYS; under a Cluster they share the service's hash tag (one slot).
import { LuaScript } from '../redis-script.js';
import { SUM_FUNCTIONS } from './admit-functions.js';

/**
 * KEYS: the holds hash, the sums hash, the name's desired record. ARGV:
 * `<name> <uid>`, the guard, the uid. Guards: `none`; `unclaimed`,
 * nothing while the record is present with that uid (a create of it may
 * be making its VM); `failed`, the same unless the record carries its
 * create's Permanent failure (RECORD_FAILURE; a new create clears it).
 *
 * A release removes the hold and takes its sizes off its tenant's sums,
 * never below 0 (a sum a lost write left short stays at 0). Idempotent:
 * no hold, nothing changes. Returns {'released', tenant, hold JSON} |
 * {'none'} (no hold) | {'claimed'} (the guard kept it). A hold that is not
 * JSON naming a tenant is removed, no sum touched, and answered with tenant ''.
 */
export const RELEASE_HOLD = new LuaScript(`${SUM_FUNCTIONS}
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return {'none'} end
if ARGV[2] ~= 'none' then
  local head = redis.call('HMGET', KEYS[3], 'state', 'uid', 'failed')
  local claimed = head[1] == 'present' and head[2] == ARGV[3]
  if claimed and not (ARGV[2] == 'failed' and head[3]) then return {'claimed'} end
end
redis.call('HDEL', KEYS[1], ARGV[1])
local ok, hold = pcall(cjson.decode, json)
if not ok or type(hold) ~= 'table' or type(hold.tenant) ~= 'string' then return {'released', '', json} end
for _, quota in ipairs({'vms', 'cores', 'memoryMiB', 'diskGiB'}) do
  local size = math.floor(tonumber(hold[quota]) or 0)
  if size > 0 then addToSum(KEYS[2], hold.tenant .. ' ' .. quota, -size) end
end
return {'released', hold.tenant, json}
`);

/**
 * KEYS: the holds hash, the sums hash, the name's desired record. ARGV:
 * `<name> <uid>`, the uid, the create's generation, then cores, memoryMiB,
 * diskGiB: what the VM has now that the create of that generation
 * completed. An in-place change holds the larger of the old and new sizes
 * from its accept (a shrink Proxmox refuses leaves the VM as it was); this
 * settles the hold on what the VM has, only while the record is present
 * with that uid at that generation (a newer change settles its own), and
 * moves the owner's sums by the difference, never below 0. Returns 1 when
 * the hold changed, else 0.
 */
export const SETTLE_HOLD = new LuaScript(`${SUM_FUNCTIONS}
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return 0 end
local head = redis.call('HMGET', KEYS[3], 'state', 'uid', 'generation')
if head[1] ~= 'present' or head[2] ~= ARGV[2] or head[3] ~= ARGV[3] then return 0 end
local ok, hold = pcall(cjson.decode, json)
if not ok or type(hold) ~= 'table' or type(hold.tenant) ~= 'string' then return 0 end
local changed = 0
for i, quota in ipairs({'cores', 'memoryMiB', 'diskGiB'}) do
  local now = math.floor(tonumber(ARGV[3 + i]) or 0)
  local delta = now - math.floor(tonumber(hold[quota]) or 0)
  if delta ~= 0 then
    changed = 1
    hold[quota] = now
    addToSum(KEYS[2], hold.tenant .. ' ' .. quota, delta)
  end
end
if changed == 1 then redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hold)) end
return changed
`);
