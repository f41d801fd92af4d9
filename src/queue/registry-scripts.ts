// Lua for the desired-state registry (SPEC 2): each decision reads and
// writes one name's record atomically, so two producers can never both
// hand out a generation for one intent. JOB_LOCK_OPS also takes and
// releases the name's lock (SPEC 3), so a job pays one round trip at its
// start and one at its end for both, shared with the jobs running
// alongside (ScriptBatch, src/redis-script.ts).

import { LuaScript } from '../redis-script.js';
import { ADDRESS_FUNCTIONS } from '../addresses/allocate-scripts.js';
import { CLAIM_FUNCTIONS } from '../pools/claim-functions.js';
import { LEASE_FUNCTIONS } from './lease-scripts.js';
import { INDEX_FUNCTIONS } from './vm-index-scripts.js';
import { TENANT_FUNCTIONS } from '../tenants/admit-functions.js';

/**
 * KEYS: record, generations, index, lease index, address leases, the
 * tenants' holds, sums and rate buckets (SPEC 34), then,
 * for a create on a pooled network (SPEC 29), the pool's held, cooling
 * and cursor keys, then, for a create of a warm pool's shape (SPEC 30),
 * that pool's idle set, members hash and demand set (the last three keys). ARGV: name,
 * uid, spec JSON, now, '1' when the caller gave the uid (else '0': a
 * present name's uid is taken), the job id's prefix
 * (src/job-table/job-ids.ts intentJobIdPrefix, to which the generation is
 * appended), a JSON object of what a spec field absent from either spec
 * means (a spec from before images had no image: the default one, SPEC
 * 27), the create's lease terms (JSON {ttlSeconds, onExpiry}, SPEC 31),
 * the expiry they give from now (RFC 3339) and its ms, the pool's range
 * (JSON {first, last, skip}, src/addresses/pool-args.ts) or '' for no
 * pool, the address lease's JSON less address and uid (or ''), the warm
 * pool to claim from (JSON {pool, fingerprint, at}, at: now in ms) or '', the
 * caller's tenant (JSON {name, admin, quotas, size}, SPEC 34) or '' (the
 * service's own create: no owner, no hold), then the names of
 * the spec fields that must match a present spec (SPEC 2), each maybe
 * with a mode after a colon: `any` (a field a present VM takes in place
 * whatever its new value) or `grow` (one it takes in place only when
 * larger). Returns {kind, lease JSON or '', lease change
 * (lease-scripts.ts applyTerms: 'set', 'kept', 'clear', 'none'), address
 * lease JSON or '', pool claim JSON or 'miss' (a fresh record that
 * tried to claim and found no idle member) or '', the record's tenant or
 * '' (SPEC 34; except for 'conflict'), ...} where the rest is: for
 * 'recorded' and 'existing', generation, jobId, uid; for 'updated',
 * generation, jobId, uid, changed field... (only fields a present VM
 * takes in place differ: a new generation of the present uid, marked
 * `changing` until a job of it takes the lock); for 'conflict' (nothing
 * written), uid, '1' when the uid differs else '0', differing field that
 * cannot change in place.... Lease terms are not spec: other terms on a
 * present name move its lease and are no conflict. A new generation and
 * a repeat both clear a recorded Permanent failure: the caller asked
 * again. The same spec on a name a lease's expiry stopped (`stopped`,
 * SPEC 31) is 'recorded': a new generation whose create starts the VM
 * again, its expired lease gone.
 * The address (SPEC 29): a write of the record ('recorded', 'updated')
 * keeps the address lease `<name> <uid>` holds, else, on a pool, takes
 * one (allocate-scripts.ts); the record's `address` is that lease (none:
 * the field goes). No free address: {'exhausted'}, nothing written. A
 * repeat ('existing') answers the record's address as it is, or, on a
 * pool, takes one when the record has none (a create that failed
 * Permanent and left nothing gave it back).
 * The claim (SPEC 30): only a name not present (a fresh 'recorded') whose
 * uid holds no address lease claims, the oldest-ready idle member of the
 * pool's current fingerprint (src/pools/claim-functions.ts); its address
 * lease moves to the claimer and is the claimer's `address`, no address
 * is taken from the network's pool, the record gets `claim` and the
 * member's `claimedBy` (`<claimer> <claimer uid>`). No idle member: the
 * cold way. Either way the try is counted in the pool's demand set
 * (claim-functions.ts countDemand). A new generation of the same uid (an in-place change) keeps
 * the record's `claim` and answers it, so its create renames the member
 * first (the rename may not have run yet) and then changes the renamed VM;
 * a stopped name created again drops it (the VM ran renamed); a repeat
 * answers the one it has.
 * The tenant (SPEC 34, src/tenants/admit-functions.ts): a caller that is
 * not admin gets {'taken'} for a name another tenant holds (present, or
 * deleted while that tenant's hold of its VM is still there). A write
 * that adds to what the owner holds (a fresh record, an in-place change,
 * a repeat whose hold its failure gave back) is checked against the
 * caller's quotas when the caller owns the name: {'quota', quota, use,
 * asked, limit}; a new generation against its creates per minute:
 * {'rate', seconds, limit}. Either writes nothing. Accepted, the hold of
 * `<name> <uid>` is the create's size and the sums follow; a fresh
 * record's `tenant` is the caller's.
 * The cluster (SPEC 32): a write of the record sets its `cluster` field
 * to the spec's (none: the field goes), which RECORD_ABSENT leaves on the
 * tombstone; `cluster` is compared as a spec field when the caller lists it.
 */
export const RECORD_PRESENT = new LuaScript(`${INDEX_FUNCTIONS}${LEASE_FUNCTIONS}${ADDRESS_FUNCTIONS}${CLAIM_FUNCTIONS}${TENANT_FUNCTIONS}
local function leaseOf(kind, fresh, rest, address, claim)
  local lease, change = applyTerms(KEYS[1], KEYS[4], ARGV[1], ARGV[8], ARGV[9], ARGV[10], fresh)
  local answer = {kind, lease, change, address or '', claim or '', redis.call('HGET', KEYS[1], 'tenant') or ''}
  for _, value in ipairs(rest) do table.insert(answer, value) end
  return answer
end
-- The lease the uid holds, else one taken from the pool (false: none free), else nil (no pool).
local function addressFor(uid)
  local holder = ARGV[1] .. ' ' .. uid
  local held = redis.call('HGET', KEYS[5], holder)
  if held then return held end
  if ARGV[11] == '' then return nil end
  return takeAddress(KEYS[5], KEYS[9], KEYS[10], KEYS[11], holder, uid, cjson.decode(ARGV[11]), ARGV[12])
end
-- A tombstone's uids with a hold still there (SPEC 34): their VMs may not be gone yet (set below, before any record()).
local oldHeld = false
-- keepClaim: a new generation of the present uid keeps its claim (SPEC 30), so its create renames the member first.
-- tenant (SPEC 34): a fresh record's owner (false: none, a pool member's); nil keeps the present one.
local function record(uid, spec, address, keepClaim, tenant)
  local wasState, wasNode = indexedOf(KEYS[1])
  if tenant then
    -- A name that changes owner (SPEC 34) once its old VMs are gone starts a history of its own; an admin's
    -- create while one is still there keeps the uids its delete and the releases need.
    if not oldHeld and redis.call('EXISTS', KEYS[1]) == 1 and (redis.call('HGET', KEYS[1], 'tenant') or 'default') ~= tenant then
      redis.call('HDEL', KEYS[1], 'retiredUids', 'lastKnown', 'failed')
    end
    redis.call('HSET', KEYS[1], 'tenant', tenant)
  elseif tenant == false then redis.call('HDEL', KEYS[1], 'tenant') end
  local gen = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
  local jobId = ARGV[6] .. gen
  redis.call('HSET', KEYS[1], 'state', 'present', 'uid', uid, 'generation', gen, 'spec', spec, 'updatedAt', ARGV[4], 'jobId', jobId)
  -- SPEC 32: the spec's cluster as a field of its own, which the tombstone keeps (a delete and the sweep know where its VM is).
  local okSpec, decoded = pcall(cjson.decode, spec)
  if okSpec and type(decoded) == 'table' and type(decoded.cluster) == 'string' then redis.call('HSET', KEYS[1], 'cluster', decoded.cluster)
  else redis.call('HDEL', KEYS[1], 'cluster') end
  if address then redis.call('HSET', KEYS[1], 'address', address) else redis.call('HDEL', KEYS[1], 'address') end
  if not keepClaim then redis.call('HDEL', KEYS[1], 'claim') end
  -- A stopped name (SPEC 31) created again, in place or not: its expired lease ends with it, and its terms;
  -- its claim too (the VM ran renamed until its lease stopped it: the create starts it, no agent write on a stopped guest).
  if redis.call('HEXISTS', KEYS[1], 'stopped') == 1 then
    dropLease(KEYS[1], KEYS[4], ARGV[1])
    redis.call('HDEL', KEYS[1], 'leaseTerms', 'claim')
  end
  redis.call('HDEL', KEYS[1], 'failed', 'changing', 'stopped')
  redis.call('PERSIST', KEYS[1])
  redis.call('SADD', KEYS[3], ARGV[1])
  reindex(KEYS[1], wasState, wasNode)
  return {tostring(gen), jobId, uid}
end
-- The spec JSON with the caller's drawn uid replaced by the present one (found as a plain string).
local function withUid(json, from, to)
  local first, last = string.find(json, '"uid":"' .. from .. '"', 1, true)
  if not first then return json end
  return string.sub(json, 1, first - 1) .. '"uid":"' .. to .. '"' .. string.sub(json, last + 1)
end
-- The caller's tenant (SPEC 34): {name, admin, quotas, size}, or none (the service's own create of a pool member).
local caller = ARGV[14] ~= '' and cjson.decode(ARGV[14]) or nil
-- Refusals write nothing: checked before any write; nil, or the answer to return.
-- inPlace: a present VM's change, whose hold keeps its larger sizes until its job has run (wantedHold).
local function admit(owner, field, newGeneration, inPlace)
  if not caller then return nil end
  local quotas = caller.quotas or {}
  if owner == caller.name then
    local have = heldBy(KEYS[6], field)
    local refused = overQuota(KEYS[7], owner, holdDelta(have, wantedHold(caller, owner, inPlace and have)), quotas)
    if refused then return refused end
  end
  if newGeneration and quotas.createsPerMinute then return overRate(KEYS[8], caller.name, quotas.createsPerMinute) end
  return nil
end
local function commit(owner, field, newGeneration, inPlace)
  if not caller then return end
  local have = heldBy(KEYS[6], field)
  writeHold(KEYS[6], KEYS[7], field, have, wantedHold(caller, owner, inPlace and have))
  local limit = (caller.quotas or {}).createsPerMinute
  if newGeneration and limit then takeToken(KEYS[8], caller.name, limit) end
end
local state = redis.call('HGET', KEYS[1], 'state')
local owner = redis.call('HGET', KEYS[1], 'tenant') or 'default'
-- Every uid the tombstone knows (its last and the retired ones) whose hold is still there: a VM of it may be too.
local oldHolders = {}
if state == 'absent' then
  local uids = cjson.decode(redis.call('HGET', KEYS[1], 'retiredUids') or '[]')
  table.insert(uids, redis.call('HGET', KEYS[1], 'uid'))
  for _, oldUid in ipairs(uids) do
    local oldHold = heldBy(KEYS[6], ARGV[1] .. ' ' .. oldUid)
    if oldHold then
      oldHeld = true
      table.insert(oldHolders, oldHold.tenant)
    end
  end
end
-- Another tenant's name (SPEC 34): present, or deleted while its VM (its hold) is not yet gone.
if caller and not caller.admin then
  if state == 'present' and owner ~= caller.name then return {'taken'} end
  for _, holder in ipairs(oldHolders) do
    if holder ~= caller.name then return {'taken'} end
  end
end
if state == 'present' then
  local uid = redis.call('HGET', KEYS[1], 'uid')
  local field = ARGV[1] .. ' ' .. uid
  local changed = {}
  local uidDiffers = ARGV[5] == '1' and uid ~= ARGV[2]
  local answer = {'conflict', '', 'none', '', '', uid, uidDiffers and '1' or '0'}
  if #ARGV > 14 then
    local have = cjson.decode(redis.call('HGET', KEYS[1], 'spec') or '{}')
    local want = cjson.decode(ARGV[3])
    local absent = cjson.decode(ARGV[7])
    -- A list (sshKeys) compares by its items in order; an empty one is the same as none.
    local function same(a, b)
      if type(a) == 'table' or type(b) == 'table' then return cjson.encode(a or {}) == cjson.encode(b or {}) end
      return a == b
    end
    for i = 15, #ARGV do
      local field, mode = string.match(ARGV[i], '^([^:]+):?(.*)$')
      local a, b = have[field], want[field]
      if a == nil then a = absent[field] end
      if b == nil then b = absent[field] end
      if not same(a, b) then
        local grows = mode == 'grow' and type(a) == 'number' and type(b) == 'number' and b > a
        if mode == 'any' or grows then table.insert(changed, field) else table.insert(answer, field) end
      end
    end
  end
  if uidDiffers or #answer > 7 then return answer end
  local spec = ARGV[5] == '1' and ARGV[3] or withUid(ARGV[3], ARGV[2], uid)
  local stopped = redis.call('HEXISTS', KEYS[1], 'stopped') == 1
  -- An in-place change, or a VM a lease's expiry stopped (SPEC 31) asked again: a new generation, whose create changes or starts it.
  if #changed > 0 or stopped then
    local refused = admit(owner, field, true, true)
    if refused then return refused end
    local address = addressFor(uid)
    if address == false then return {'exhausted'} end
    local recorded = record(uid, spec, address, true)
    commit(owner, field, true, true)
    local claim = redis.call('HGET', KEYS[1], 'claim')
    if #changed == 0 then return leaseOf('recorded', false, recorded, address, claim) end
    redis.call('HSET', KEYS[1], 'changing', recorded[1])
    for _, field in ipairs(changed) do table.insert(recorded, field) end
    return leaseOf('updated', false, recorded, address, claim)
  end
  -- A repeat takes a hold only when it has none: its failed create gave it back (SPEC 34, like the address below).
  local rehold = caller and not heldBy(KEYS[6], field)
  if rehold then
    local refused = admit(owner, field, false)
    if refused then return refused end
  end
  local address = redis.call('HGET', KEYS[1], 'address')
  -- A create that failed Permanent and left nothing gave its address back (SPEC 29): asked again, it takes one.
  if not address and ARGV[11] ~= '' then
    address = addressFor(uid)
    if address == false then return {'exhausted'} end
    redis.call('HSET', KEYS[1], 'address', address)
  end
  if rehold then commit(owner, field, false) end
  redis.call('HDEL', KEYS[1], 'failed')
  return leaseOf('existing', false, {redis.call('HGET', KEYS[1], 'generation'), redis.call('HGET', KEYS[1], 'jobId'), uid}, address, redis.call('HGET', KEYS[1], 'claim'))
end
local base = string.match(KEYS[1], '^(.*):desired:[^:]*$')
local holder = ARGV[1] .. ' ' .. ARGV[2]
local newOwner = caller and caller.name
do
  local refused = admit(newOwner, holder, true)
  if refused then return refused end
end
local member, memberRecord, address
local tried = false
-- A uid that holds a lease already (its earlier VM still being deleted) keeps to the cold way: one lease per holder.
if ARGV[13] ~= '' and redis.call('HEXISTS', KEYS[5], holder) == 0 then
  tried = true
  member, memberRecord = takeIdleMember(KEYS[#KEYS - 2], KEYS[#KEYS - 1], base, cjson.decode(ARGV[13]).fingerprint)
end
if member then
  address = moveMemberLease(KEYS[5], base, member, memberRecord, holder, ARGV[2])
else
  address = addressFor(ARGV[2])
  if address == false then return {'exhausted'} end
end
-- A tombstone keeps the uid that was deleted; a new uid retires it, so a
-- create may replace that uid's VM if its delete never ran (superseded).
local old = redis.call('HGET', KEYS[1], 'uid')
-- SPEC 32: created again in another cluster (absent: the first, absentMeans'), its old uids' VMs are in the
-- old one, whose sweep deletes them by uid; the new cluster's create cannot replace them, nor its delete
-- without a uid end their address leases and holds. The one-cluster form has no cluster on either side.
local absentMeans = cjson.decode(ARGV[7])
local oldCluster = redis.call('HGET', KEYS[1], 'cluster') or absentMeans.cluster
local okSpec, wanted = pcall(cjson.decode, ARGV[3])
local newCluster = okSpec and type(wanted) == 'table' and wanted.cluster or absentMeans.cluster
if state == 'absent' and oldCluster ~= newCluster then
  redis.call('HDEL', KEYS[1], 'retiredUids')
elseif state == 'absent' and old and old ~= ARGV[2] then
  local raw = redis.call('HGET', KEYS[1], 'retiredUids')
  local retired = raw and cjson.decode(raw) or {}
  table.insert(retired, old)
  while #retired > 16 do table.remove(retired, 1) end
  redis.call('HSET', KEYS[1], 'retiredUids', cjson.encode(retired))
end
-- Demand (SPEC 30): every tried claim, hit or miss, sets the refill's target.
local at = tried and tonumber(cjson.decode(ARGV[13]).at)
if at then countDemand(KEYS[#KEYS], holder, at) end
local recorded = record(ARGV[2], ARGV[3], address, false, newOwner or false)
commit(newOwner, holder, true)
local claim = member and writeClaim(member, memberRecord, cjson.decode(ARGV[13]).pool, KEYS[1], ARGV[1], ARGV[2], recorded[1], ARGV[4])
-- A claim tried and no idle member found: a miss, told apart from a create that never tried.
if not member and tried then claim = 'miss' end
return leaseOf('recorded', true, recorded, address, claim)
`);

/**
 * KEYS: record. ARGV: the failed create's generation, failure JSON. A
 * create that failed Permanent is recorded on its name only while the name
 * is present at that generation (SPEC 2): the reconciler then leaves it
 * alone until a new create arrives. Returns 1 when written.
 */
export const RECORD_FAILURE = new LuaScript(`
if redis.call('HGET', KEYS[1], 'state') ~= 'present' or redis.call('HGET', KEYS[1], 'generation') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'failed', ARGV[2])
return 1
`);

/**
 * KEYS: record, generations, index, lease index. ARGV: name, uid or '',
 * now, tombstone seconds, the job id's prefix (intentJobIdPrefix; the
 * generation is appended). A delete naming a uid the name is not desired
 * with changes no desired state: it only removes that uid's VM (the
 * reconciler's orphans). A recorded delete ends the name's lease (SPEC 31)
 * and keeps the record's `claim` (SPEC 30) for its job.
 * ARGV[6]: the caller's tenant (JSON {name, admin}, SPEC 34) or '': a
 * tenant that is not admin deletes only a name it owns ({'notfound'}
 * otherwise, also for a name with no record: nothing of it is its).
 * Returns {'recorded', generation, jobId, '1' when it ended a lease else
 * '0', tenant or '', cluster or ''} | {'existing', generation, jobId, '',
 * tenant or '', cluster or ''} | {'foreign', generation, '', '', tenant or
 * ''} | {'notfound'}; the tenant is the name's owner (SPEC 34), for its
 * job; the cluster the record's `cluster` field (SPEC 32: where its VM is,
 * which its delete runs in though the name be created again elsewhere).
 */
export const RECORD_ABSENT = new LuaScript(`${INDEX_FUNCTIONS}${LEASE_FUNCTIONS}
local state = redis.call('HGET', KEYS[1], 'state')
local uid = redis.call('HGET', KEYS[1], 'uid')
local caller = (ARGV[6] or '') ~= '' and cjson.decode(ARGV[6]) or nil
if caller and not caller.admin and (not state or (redis.call('HGET', KEYS[1], 'tenant') or 'default') ~= caller.name) then
  return {'notfound'}
end
if ARGV[2] ~= '' and state == 'present' and uid ~= ARGV[2] then
  return {'foreign', redis.call('HGET', KEYS[1], 'generation'), '', '', redis.call('HGET', KEYS[1], 'tenant') or ''}
end
if state == 'absent' then
  return {'existing', redis.call('HGET', KEYS[1], 'generation'), redis.call('HGET', KEYS[1], 'jobId'), '', redis.call('HGET', KEYS[1], 'tenant') or '', redis.call('HGET', KEYS[1], 'cluster') or ''}
end
local wasState, wasNode = indexedOf(KEYS[1])
local gen = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
local jobId = ARGV[5] .. gen
redis.call('HSET', KEYS[1], 'state', 'absent', 'generation', gen, 'updatedAt', ARGV[3], 'jobId', jobId)
-- The claim stays on the tombstone (SPEC 30): the delete job ends a member its create never renamed.
redis.call('HDEL', KEYS[1], 'spec', 'failed', 'changing', 'leaseTerms', 'stopped')
local ended = dropLease(KEYS[1], KEYS[4], ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('SADD', KEYS[3], ARGV[1])
reindex(KEYS[1], wasState, wasNode)
return {'recorded', tostring(gen), jobId, ended and '1' or '0', redis.call('HGET', KEYS[1], 'tenant') or '', redis.call('HGET', KEYS[1], 'cluster') or ''}
`);

// Writes json as the record's lastKnown, only into an existing record
// and, when state is not '', only while the record's desired state is
// that one; the listing's index follows the node.
const WRITE_LAST_KNOWN = `${INDEX_FUNCTIONS}
local function writeLastKnown(record, json, state)
  if redis.call('EXISTS', record) == 0 then return 0 end
  if state ~= '' and redis.call('HGET', record, 'state') ~= state then return 0 end
  local wasState, wasNode = indexedOf(record)
  redis.call('HSET', record, 'lastKnown', json)
  reindex(record, wasState, wasNode)
  return 1
end`;

/** KEYS: record. ARGV: lastKnown JSON, required state or ''. Returns 1 when written. */
export const RECORD_LAST_KNOWN = new LuaScript(`${WRITE_LAST_KNOWN}
return writeLastKnown(KEYS[1], ARGV[1], ARGV[2])
`);

/**
 * A locked job's two calls (SPEC 2, 3), for any number of jobs at once
 * (see ScriptBatch). KEYS: lock and record, for each operation. ARGV: four
 * for each operation, one of
 * - 'acquire', token, ttl ms, the job's generation or '' (take the lock
 *   whatever the generation): reads the record's head (state, uid,
 *   generation) and takes the lock when free; a job of the record's
 *   generation clears its `changing` mark (an in-place change's job runs). When the record's generation
 *   is newer than the job's, the lock is left alone: the job is likely
 *   superseded, and its definition decides. Answers {'taken' | 'held' |
 *   'older', state, uid, generation} (each nil when the record has none).
 * - 'release', token, lastKnown JSON or '' (none), required state or '':
 *   writes lastKnown as RECORD_LAST_KNOWN does, then releases the lock if
 *   the token still holds it. Answers {written, released} as 1 or 0.
 * An operation that raises an error answers {'error', message}; the
 * others run all the same.
 */
export const JOB_LOCK_OPS = new LuaScript(`${WRITE_LAST_KNOWN}
local function acquire(lock, record, token, ttl, generation)
  local head = redis.call('HMGET', record, 'state', 'uid', 'generation')
  local answer = 'held'
  if generation ~= '' and tonumber(head[3] or '0') > tonumber(generation) then
    answer = 'older'
  elseif redis.call('SET', lock, token, 'PX', ttl, 'NX') then
    answer = 'taken'
    -- A job of the record's generation runs: an in-place change (RECORD_PRESENT) has its job.
    if generation ~= '' and head[3] == generation then redis.call('HDEL', record, 'changing') end
  end
  return {answer, head[1], head[2], head[3]}
end
local function release(lock, record, token, json, state)
  local written = 0
  if json ~= '' then written = writeLastKnown(record, json, state) end
  local released = 0
  if redis.call('GET', lock) == token then released = redis.call('DEL', lock) end
  return {written, released}
end
local operations = {acquire = acquire, release = release}
local answers = {}
for i = 1, #KEYS / 2 do
  local a = 4 * (i - 1)
  local operation = operations[ARGV[a + 1]]
  local ok, answer = false, 'unknown operation ' .. tostring(ARGV[a + 1])
  if operation then ok, answer = pcall(operation, KEYS[2 * i - 1], KEYS[2 * i], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]) end
  if not ok then answer = {'error', type(answer) == 'table' and answer.err or tostring(answer)} end
  answers[i] = answer
end
return answers
`);
