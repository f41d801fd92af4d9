// Lua for a warm pool's members (SPEC 30) on the keys of src/redis-keys.ts
// (poolIdle, poolMembers, poolSeq, poolNames) and the members' registry
// records. Each write is one script: the accept's claim
// (claim-functions.ts) reads the same keys, so a member is idle, claimed
// or drained, never two at once. Every key is passed in KEYS or is a
// member's record under the same prefix, so under a Cluster each script
// runs on the service's one slot (SPEC 25).
import { LuaScript } from '../redis-script.js';
import { INDEX_FUNCTIONS } from '../queue/vm-index-scripts.js';

/** How many of a pool's last lead times the refill's target is taken from. */
export const LEAD_SAMPLES = 20;

/**
 * KEYS: seq, members, pool names. ARGV: pool, the members' name prefix
 * (`pvep-pool-<pool>-`), the entry's JSON less its name. The next number
 * names the member; its entry is written and the pool listed. Returns
 * {name, entry JSON}.
 */
export const ADD_MEMBER = new LuaScript(`
local name = ARGV[2] .. redis.call('INCR', KEYS[1])
local entry = '{"name":' .. cjson.encode(name) .. ',' .. string.sub(ARGV[3], 2)
redis.call('HSET', KEYS[2], name, entry)
redis.call('SADD', KEYS[3], ARGV[1])
return {name, entry}
`);

/**
 * KEYS: members, idle, the member's record, the pool's lead times. ARGV:
 * name, uid, the pool's current fingerprint, the entry to write (JSON,
 * with readyAt), readyAt ms, its lead time ms (entry to idle) or ''. Idle
 * only when the entry there has that uid and the current fingerprint and
 * the record is present with that uid and not claimed;
 * already idle stays as it was (a rerun of its create); one a drain took
 * (readyAt or drainingSince, out of the idle set) is never idle again. Returns 1 when
 * idle; 2 when the member is a claimer's (its record claimedBy, or
 * forgotten: no entry and no record, FORGET_CLAIMED's end), which its
 * create must leave alone; 0 otherwise (unusable: the refill drains it).
 * Nothing is written unless it answers 1. A member made idle now adds its
 * lead time to the pool's last LEAD_SAMPLES (the refill's target,
 * refill-decide.ts).
 */
export const MARK_IDLE = new LuaScript(`
local head = redis.call('HMGET', KEYS[3], 'state', 'uid', 'claimedBy')
if head[2] == ARGV[2] and head[3] then return 2 end
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then
  if redis.call('EXISTS', KEYS[3]) == 0 then return 2 end
  return 0
end
local ok, entry = pcall(cjson.decode, json)
if not ok or type(entry) ~= 'table' or entry.uid ~= ARGV[2] or entry.fingerprint ~= ARGV[3] then return 0 end
if head[1] ~= 'present' or head[2] ~= ARGV[2] then return 0 end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 1 end
-- Taken for a drain: out of the idle set once idle (readyAt), or while creating (drainingSince).
if entry.readyAt or entry.drainingSince then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], tonumber(ARGV[5]), ARGV[1])
if ARGV[6] ~= '' then
  redis.call('LPUSH', KEYS[4], ARGV[6])
  redis.call('LTRIM', KEYS[4], 0, ${LEAD_SAMPLES - 1})
end
return 1
`);

/**
 * KEYS: members, the member's record. ARGV: name, uid. 'claimed' when the
 * record of that uid is claimedBy, 'forgotten' when neither the entry nor
 * the record is there (a claim renamed it and FORGET_CLAIMED ran), else ''.
 */
export const HANDED_OVER = new LuaScript(`
local head = redis.call('HMGET', KEYS[2], 'uid', 'claimedBy')
if head[1] == ARGV[2] and head[2] then return 'claimed' end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('EXISTS', KEYS[2]) == 0 then return 'forgotten' end
return ''
`);

/**
 * KEYS: members, idle, the member's record. ARGV: name, now (RFC 3339).
 * Whoever takes a member owns its drain: an idle one leaves the idle set
 * (a claim's ZREM is the other taker); one still creating (in the members
 * hash, never idle, not claimed) gets `drainingSince`, after which
 * MARK_IDLE refuses it. Returns 1 when taken, 0 when not.
 */
export const TAKE_FOR_DRAIN = new LuaScript(`
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then return 1 end
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return 0 end
local ok, entry = pcall(cjson.decode, json)
if not ok or type(entry) ~= 'table' or entry.readyAt or entry.drainingSince then return 0 end
if redis.call('HGET', KEYS[3], 'claimedBy') then return 0 end
entry.drainingSince = ARGV[2]
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
return 1
`);

const DROP_ENTRY = `
local function dropEntry(members, idle, names, name, pool)
  redis.call('HDEL', members, name)
  redis.call('ZREM', idle, name)
  if redis.call('HLEN', members) == 0 then redis.call('SREM', names, pool) end
end`;

/** KEYS: members, idle, pool names. ARGV: name, pool. The member's entry goes, idle or not. */
export const REMOVE_MEMBER = new LuaScript(`${DROP_ENTRY}
dropEntry(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2])
return 1
`);

/**
 * KEYS: members, idle, pool names, the member's record, the registry's set
 * of names, the leases' index. ARGV: member name, member uid, pool. A
 * claimed member the claim renamed: its record goes (only while it is the
 * record of that uid: no tombstone, no delete job, the VM is the
 * claimer's), with its listing index entries, and its entry. Returns 1
 * when the record went, 0 when only the entry did.
 */
export const FORGET_CLAIMED = new LuaScript(`${INDEX_FUNCTIONS}${DROP_ENTRY}
local gone = 0
if redis.call('HGET', KEYS[4], 'uid') == ARGV[2] then
  local wasState, wasNode = indexedOf(KEYS[4])
  redis.call('DEL', KEYS[4])
  reindex(KEYS[4], wasState, wasNode)
  redis.call('SREM', KEYS[5], ARGV[1])
  redis.call('ZREM', KEYS[6], ARGV[1])
  gone = 1
end
dropEntry(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[3])
return gone
`);
