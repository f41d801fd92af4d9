// Readiness `phone-home` in Redis (SPEC 29): a token's binding under
// keys.readyToken with a TTL, written by the worker before the seed that
// carries the token; the web route's accept takes it and leaves the
// signal under keys.readySignal in one script, so a token is good once
// however many calls race for it. The signal's key is derived from the
// token's (same prefix, so the same hash tag on a Cluster, SPEC 25).
import type { ReadyBinding, ReadySignals } from '../provider/ready-signals.js';
import { LuaScript, type RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';

/**
 * How long a signal is kept: cloud-init phones home once per instance, so
 * a create that runs again on the VM (an in-place change, a retry after
 * the wait) must still find it long after the first boot.
 */
export const READY_SIGNAL_SECONDS = 30 * 24 * 3600;

/** What the route consumes: the binding of a token accepted now, undefined for any token that is not (unknown, used, expired). */
export interface ReadyTokens {
  accept(token: string): Promise<ReadyBinding | undefined>;
}

/** KEYS[1] the token's key; ARGV[1] the signal's TTL (s). Answers the binding's JSON, or false and changes nothing. */
const ACCEPT = new LuaScript(`
local binding = redis.call('GET', KEYS[1])
if not binding then return false end
local ok, value = pcall(cjson.decode, binding)
if not ok or type(value) ~= 'table' or type(value.name) ~= 'string' or type(value.uid) ~= 'string' then return false end
local base = string.match(KEYS[1], '^(.*):ready%-token:[^:]*$')
if not base then return false end
redis.call('DEL', KEYS[1])
redis.call('SET', base .. ':ready-signal:' .. value.name .. ':' .. value.uid, binding, 'EX', ARGV[1])
return binding
`);

function parseBinding(text: unknown): ReadyBinding | undefined {
  if (typeof text !== 'string') return undefined;
  const value = JSON.parse(text) as Partial<ReadyBinding>;
  return typeof value.name === 'string' && typeof value.uid === 'string' ? { name: value.name, uid: value.uid, generation: Number(value.generation ?? 0) } : undefined;
}

export function redisReadySignals(redis: RedisClient, prefix: string): ReadySignals & ReadyTokens {
  return {
    async issue(token, binding, ttlSeconds) {
      await redis.set(keys.readyToken(prefix, token), JSON.stringify(binding), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
    async arrived(name, uid) {
      return (await redis.exists(keys.readySignal(prefix, name, uid))) === 1;
    },
    async forget(name, uid) {
      await redis.del(keys.readySignal(prefix, name, uid));
    },
    async accept(token) {
      return parseBinding(await ACCEPT.run(redis, [keys.readyToken(prefix, token)], [READY_SIGNAL_SECONDS]));
    },
  };
}
