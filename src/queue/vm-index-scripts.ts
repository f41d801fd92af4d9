// Lua for the listing's filter index (SPEC 27: GET /v1/vms by state and
// node; SPEC 34: by tenant; SPEC 32: by cluster): per filter a sorted set of names, all scores 0, so a page is a
// ZRANGEBYLEX from the cursor of about its limit. The registry's scripts
// keep it with the record they write (INDEX_FUNCTIONS), atomically; a
// record of an older release is indexed by INDEX_NAMES, and a set entry a
// record no longer fits (a tombstone that expired) is dropped by the page
// that reads it. Every key is derived from the record's, so it stays under
// the service's hash tag {prefix} (SPEC 25).
import { LuaScript } from '../redis-script.js';

/**
 * Lua functions for a script that writes a record `<base>:desired:<name>`:
 * `indexedOf(record)` is what the index files it under (state, node: nil
 * when none), `reindex(record, oldState, oldNode)` moves the name from the
 * sets of what it was to those of what it is now, `forget(stem, name)`
 * drops it from every set (its record gone, what it was filed under is
 * not known). The sets are `<base>:desired-by:all`, `:state:<state>`,
 * `:node:<node>` and `:node-state:<state>:<node>` (keys.ts desiredBy);
 * `:nodes` is the set of the nodes that have sets. Each name is also in
 * `:tenant:<tenant>`, its record's owner's (SPEC 34; no `tenant` field:
 * `default`), and the hash `:tenant-of` says which, so a name a new
 * owner's create takes leaves the old owner's set with no caller saying so.
 * Likewise `:cluster:<cluster>` and the hash `:cluster-of` (SPEC 32): the
 * record's `cluster`, else the first cluster as the listing last stored
 * it in `:cluster-first` (a record of the one-cluster form), else none
 * (no listing by cluster asked yet: such a name is in no cluster's set).
 */
export const INDEX_FUNCTIONS = `
local function indexedNode(json)
  if not json then return nil end
  local ok, value = pcall(cjson.decode, json)
  if ok and type(value) == 'table' and type(value.node) == 'string' and value.node ~= '' then return value.node end
  return nil
end
local function indexedOf(record)
  local fields = redis.call('HMGET', record, 'state', 'lastKnown')
  local state = fields[1]
  if state ~= 'present' and state ~= 'absent' then return nil, nil end
  return state, indexedNode(fields[2])
end
local function indexKeys(stem, state, node)
  local list = {stem .. ':all'}
  if state then table.insert(list, stem .. ':state:' .. state) end
  if node then table.insert(list, stem .. ':node:' .. node) end
  if state and node then table.insert(list, stem .. ':node-state:' .. state .. ':' .. node) end
  return list
end
local function indexStem(record)
  local base, name = string.match(record, '^(.*):desired:([^:]*)$')
  return base .. ':desired-by', name
end
local function indexedTenant(record)
  local tenant = redis.call('HGET', record, 'tenant')
  if not tenant or tenant == '' then return 'default' end
  return tenant
end
-- The name in the one set of its tenant, or cluster (kind), alone (value nil: in none of that kind).
local function fileBy(stem, kind, name, value)
  local was = redis.call('HGET', stem .. ':' .. kind .. '-of', name) or nil
  if was == value then return end
  if was then redis.call('ZREM', stem .. ':' .. kind .. ':' .. was, name) end
  if value then
    redis.call('ZADD', stem .. ':' .. kind .. ':' .. value, 0, name)
    redis.call('HSET', stem .. ':' .. kind .. '-of', name, value)
  else redis.call('HDEL', stem .. ':' .. kind .. '-of', name) end
end
local function indexedCluster(record, stem)
  local cluster = redis.call('HGET', record, 'cluster')
  if cluster and cluster ~= '' then return cluster end
  return redis.call('GET', stem .. ':cluster-first') or nil
end
local function file(stem, name, state, node, tenant, cluster)
  for _, key in ipairs(indexKeys(stem, state, node)) do redis.call('ZADD', key, 0, name) end
  if node then redis.call('SADD', stem .. ':nodes', node) end
  if tenant then fileBy(stem, 'tenant', name, tenant) end
  fileBy(stem, 'cluster', name, cluster)
end
local function forget(stem, name)
  fileBy(stem, 'tenant', name, nil)
  fileBy(stem, 'cluster', name, nil)
  redis.call('ZREM', stem .. ':all', name)
  for _, state in ipairs({'present', 'absent'}) do redis.call('ZREM', stem .. ':state:' .. state, name) end
  for _, node in ipairs(redis.call('SMEMBERS', stem .. ':nodes')) do
    redis.call('ZREM', stem .. ':node:' .. node, name)
    for _, state in ipairs({'present', 'absent'}) do redis.call('ZREM', stem .. ':node-state:' .. state .. ':' .. node, name) end
  end
end
local function reindex(record, oldState, oldNode)
  local stem, name = indexStem(record)
  local state, node = indexedOf(record)
  if oldState then for _, key in ipairs(indexKeys(stem, oldState, oldNode)) do redis.call('ZREM', key, name) end end
  if state then file(stem, name, state, node, indexedTenant(record), indexedCluster(record, stem))
  else
    fileBy(stem, 'tenant', name, nil)
    fileBy(stem, 'cluster', name, nil)
  end
end
`;

/**
 * KEYS: the index's stem (keys.desiredBy; the key itself marks the index
 * built), the registry's set of names. ARGV: the records' key prefix
 * (`<base>:desired:`), then names. Files each name under what its record
 * is now; a name with no record leaves the set of names. Returns the count indexed.
 */
export const INDEX_NAMES = new LuaScript(`${INDEX_FUNCTIONS}
local indexed = 0
for i = 2, #ARGV do
  local record = ARGV[1] .. ARGV[i]
  local state, node = indexedOf(record)
  if state then
    file(KEYS[1], ARGV[i], state, node, indexedTenant(record), indexedCluster(record, KEYS[1]))
    indexed = indexed + 1
  else
    forget(KEYS[1], ARGV[i])
    redis.call('SREM', KEYS[2], ARGV[i])
  end
end
return indexed
`);

/**
 * KEYS: the stem, the registry's set of names, the set to read (all,
 * state, node or both; a tenant's when ARGV[8] names one, else a
 * cluster's when ARGV[9] does), the set of all names, the mark of the
 * tenants' sets built, the mark of the clusters' sets built (holding the
 * first cluster they were built for). ARGV: the name to start
 * after or '', names wanted, state or '', node or '', the records' key
 * prefix, most entries to look at, '1' to compare the counts, tenant or
 * '', cluster or '', the first cluster or ''. Answers {'build'} when the
 * index is not built (with a tenant: its tenants' sets; with a cluster:
 * its clusters' sets, for that first cluster) or (compared) the registry has
 * more names than it (names written by an older release);
 * else {'done' | 'more', last name looked at or '', name...}: up to
 * `wanted` names after the start whose record passes the filters now, in
 * name order; 'done' when the set has no more. An entry whose record is
 * gone leaves every set of the index and the set of names; one whose record no longer
 * fits the set is filed again where it fits. A tenant's set is read with
 * state, node and cluster as filters, a cluster's with state and node: a
 * name of it desired otherwise stays there.
 */
export const INDEX_PAGE = new LuaScript(`${INDEX_FUNCTIONS}
local owner, wantCluster = ARGV[8], ARGV[9]
if redis.call('EXISTS', KEYS[1]) == 0 or (owner ~= '' and redis.call('EXISTS', KEYS[5]) == 0) or (wantCluster ~= '' and redis.call('GET', KEYS[6]) ~= ARGV[10]) or (ARGV[7] == '1' and redis.call('SCARD', KEYS[2]) > redis.call('ZCARD', KEYS[4])) then return {'build'} end
local wanted, most = tonumber(ARGV[2]), tonumber(ARGV[6])
local from = ARGV[1] == '' and '-' or '(' .. ARGV[1]
local found, looked, last = {}, 0, ARGV[1]
while #found < wanted and looked < most do
  local batch = redis.call('ZRANGEBYLEX', KEYS[3], from, '+', 'LIMIT', 0, math.min(wanted - #found, most - looked))
  if #batch == 0 then return {'done', last, unpack(found)} end
  for _, name in ipairs(batch) do
    looked = looked + 1
    last = name
    local record = ARGV[5] .. name
    local state, node = indexedOf(record)
    local tenant = state and indexedTenant(record)
    local cluster = state and indexedCluster(record, KEYS[1])
    if not state then
      forget(KEYS[1], name)
      redis.call('SREM', KEYS[2], name)
    elseif owner ~= '' and tenant ~= owner then
      redis.call('ZREM', KEYS[3], name)
      file(KEYS[1], name, state, node, tenant, cluster)
    elseif owner == '' and wantCluster ~= '' and cluster ~= wantCluster then
      redis.call('ZREM', KEYS[3], name)
      file(KEYS[1], name, state, node, tenant, cluster)
    elseif (ARGV[3] == '' or ARGV[3] == state) and (ARGV[4] == '' or ARGV[4] == node) and (wantCluster == '' or wantCluster == cluster) then
      table.insert(found, name)
    elseif owner == '' and wantCluster == '' then
      redis.call('ZREM', KEYS[3], name)
      file(KEYS[1], name, state, node, tenant, cluster)
    end
  end
  from = '(' .. last
end
return {'more', last, unpack(found)}
`);

/**
 * KEYS: the index's stem, the registry's set of names. ARGV: the records'
 * key prefix, then names. Each name whose record is gone now (a tombstone
 * that expired) leaves the set of names and every set of the index, so
 * neither grows with the names ever deleted; a name written again since
 * it was found gone stays. Returns the count dropped.
 */
export const FORGET_GONE = new LuaScript(`${INDEX_FUNCTIONS}
local dropped = 0
for i = 2, #ARGV do
  if redis.call('EXISTS', ARGV[1] .. ARGV[i]) == 0 then
    forget(KEYS[1], ARGV[i])
    redis.call('SREM', KEYS[2], ARGV[i])
    dropped = dropped + 1
  end
end
return dropped
`);
