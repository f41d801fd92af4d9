// Lua for the desired-state registry (SPEC 2): each decision reads and
// writes one name's record atomically, so two producers can never both
// hand out a generation for one intent. The last two also take and
// release the name's lock (SPEC 3), so a job pays one round trip at its
// start and one at its end for both.

import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run by its SHA1 (EVALSHA), so a call sends neither the
 * source nor has Redis hash it again. When Redis does not know the script
 * (a restart, SCRIPT FLUSH), the call sends the source once (EVAL).
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/**
 * KEYS: record, generations, index. ARGV: name, uid, spec JSON, now.
 * Returns {'recorded', generation, jobId} | {'existing', generation, jobId}
 * | {'conflict', uid}.
 */
export const RECORD_PRESENT = new LuaScript(`
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
`);

/**
 * KEYS: record, generations, index. ARGV: name, uid or '', now, tombstone seconds.
 * A delete naming a uid the name is not desired with changes no desired
 * state: it only removes that uid's VM (the reconciler's orphans).
 * Returns {'recorded'|'existing', generation, jobId} | {'foreign', generation}.
 */
export const RECORD_ABSENT = new LuaScript(`
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
`);

// Writes ARGV[json] as the record's lastKnown, only into an existing
// record and, when ARGV[state] is not '', only while the record's desired
// state is that one. Shared by the two scripts below.
function writeLastKnown(record: string, json: string, state: string): string {
  return `
local function writeLastKnown()
  if redis.call('EXISTS', ${record}) == 0 then return 0 end
  if ${state} ~= '' and redis.call('HGET', ${record}, 'state') ~= ${state} then return 0 end
  redis.call('HSET', ${record}, 'lastKnown', ${json})
  return 1
end`;
}

/** KEYS: record. ARGV: lastKnown JSON, required state or ''. Returns 1 when written. */
export const RECORD_LAST_KNOWN = new LuaScript(`${writeLastKnown('KEYS[1]', 'ARGV[1]', 'ARGV[2]')}
return writeLastKnown()
`);

/**
 * SPEC 2 and 3 in one call: reads the name's record head (state, uid,
 * generation) and takes its lock when free. KEYS: lock, record. ARGV:
 * token, ttl ms, the job's generation or '' (take the lock whatever the
 * generation). When the record's generation is newer than the job's, the
 * lock is left alone: the job is likely superseded, and its definition
 * decides. Returns {'taken' | 'held' | 'older', state, uid, generation}
 * (each nil when the record has none).
 */
export const ACQUIRE_READING = new LuaScript(`
local head = redis.call('HMGET', KEYS[2], 'state', 'uid', 'generation')
local answer = 'held'
if ARGV[3] ~= '' and tonumber(head[3] or '0') > tonumber(ARGV[3]) then
  answer = 'older'
elseif redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
  answer = 'taken'
end
return {answer, head[1], head[2], head[3]}
`);

/**
 * The end of a locked job in one call: writes its lastKnown as
 * RECORD_LAST_KNOWN does, then releases the lock if the token still
 * holds it. KEYS: lock, record. ARGV: token, lastKnown JSON, required
 * state or ''. Returns {written, released} as 1 or 0.
 */
export const RELEASE_WRITING = new LuaScript(`${writeLastKnown('KEYS[2]', 'ARGV[2]', 'ARGV[3]')}
local written = writeLastKnown()
local released = 0
if redis.call('GET', KEYS[1]) == ARGV[1] then released = redis.call('DEL', KEYS[1]) end
return {written, released}
`);
