// Lua for the desired-state registry (SPEC 2): each decision reads and
// writes one name's record atomically, so two producers can never both
// hand out a generation for one intent.

/**
 * KEYS: record, generations, index. ARGV: name, uid, spec JSON, now.
 * Returns {'recorded', generation, jobId} | {'existing', generation, jobId}
 * | {'conflict', uid}.
 */
export const RECORD_PRESENT = `
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'present' then
  local uid = redis.call('HGET', KEYS[1], 'uid')
  if uid == ARGV[2] then
    return {'existing', redis.call('HGET', KEYS[1], 'generation'), redis.call('HGET', KEYS[1], 'jobId')}
  end
  return {'conflict', uid}
end
-- A tombstone keeps the uid that was deleted; a new uid retires it, so a
-- create may replace that uid's VM if its delete never ran (superseded).
local old = redis.call('HGET', KEYS[1], 'uid')
if state == 'absent' and old and old ~= ARGV[2] then
  local raw = redis.call('HGET', KEYS[1], 'retiredUids')
  local retired = raw and cjson.decode(raw) or {}
  table.insert(retired, old)
  while #retired > 16 do table.remove(retired, 1) end
  redis.call('HSET', KEYS[1], 'retiredUids', cjson.encode(retired))
end
local gen = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
local jobId = 'create-' .. ARGV[1] .. '-' .. gen
redis.call('HSET', KEYS[1], 'state', 'present', 'uid', ARGV[2], 'generation', gen, 'spec', ARGV[3], 'updatedAt', ARGV[4], 'jobId', jobId)
redis.call('PERSIST', KEYS[1])
redis.call('SADD', KEYS[3], ARGV[1])
return {'recorded', tostring(gen), jobId}
`;

/**
 * KEYS: record, generations, index. ARGV: name, uid or '', now, tombstone seconds.
 * A delete naming a uid the name is not desired with changes no desired
 * state: it only removes that uid's VM (the reconciler's orphans).
 * Returns {'recorded'|'existing', generation, jobId} | {'foreign', generation}.
 */
export const RECORD_ABSENT = `
local state = redis.call('HGET', KEYS[1], 'state')
local uid = redis.call('HGET', KEYS[1], 'uid')
if ARGV[2] ~= '' and state == 'present' and uid ~= ARGV[2] then
  return {'foreign', redis.call('HGET', KEYS[1], 'generation')}
end
if state == 'absent' then
  return {'existing', redis.call('HGET', KEYS[1], 'generation'), redis.call('HGET', KEYS[1], 'jobId')}
end
local gen = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
local jobId = 'delete-' .. ARGV[1] .. '-' .. gen
redis.call('HSET', KEYS[1], 'state', 'absent', 'generation', gen, 'updatedAt', ARGV[3], 'jobId', jobId)
redis.call('HDEL', KEYS[1], 'spec')
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('SADD', KEYS[3], ARGV[1])
return {'recorded', tostring(gen), jobId}
`;

/** KEYS: record. ARGV: lastKnown JSON. Writes only into an existing record. */
export const RECORD_LAST_KNOWN = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'lastKnown', ARGV[1])
return 1
`;
