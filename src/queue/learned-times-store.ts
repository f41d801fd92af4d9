// The learned wait times (src/provider/learned-times.ts) in Redis, shared
// by every worker process on the prefix and kept across restarts (SPEC
// 26, issue 27). One hash under the hash tag {prefix} (SPEC 25, as the
// request budget's keys), field the kind (`qmstart`, `address:<image>`),
// value `<mean> <spread> <samples> <at>`, `at` the last sample's time.
// A sample is merged by a script, so two workers' samples both count in
// the running mean and spread, one after the other, neither overwrites.
// A kind not seen for LEARNED_TTL_MS is dropped; the hash goes when no
// kind was seen for that long.
import { LuaScript, type RedisClient } from '../redis-script.js';
import { LEARNING_WEIGHT, type Learned, type LearnedTimesStore } from '../provider/learned-times.js';

/** How long a learned time is kept without a new sample: images and templates change, so what is older says little. */
export const LEARNED_TTL_MS = 30 * 24 * 3600 * 1000;

export function learnedTimesKey(prefix: string): string {
  return `{${prefix}}:learned-times`;
}

// KEYS[1] the hash; ARGV kind, sample, now (ms), ttl (ms), weight. The same rule as mergeSample.
const ADD_SAMPLE = new LuaScript(`
local key, kind = KEYS[1], ARGV[1]
local sample, now, ttl, weight = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local mean, spread, samples = sample, 0, 1
local before = redis.call('HGET', key, kind)
if before then
  local m, s, n, at = string.match(before, '^(%S+) (%S+) (%S+) (%S+)$')
  m, s, n, at = tonumber(m), tonumber(s), tonumber(n), tonumber(at)
  if m and s and n and at and now - at < ttl then
    mean = m + weight * (sample - m)
    spread = s + weight * (math.abs(sample - m) - s)
    samples = n + 1
  end
end
local value = string.format('%.17g %.17g %d %d', mean, spread, samples, now)
redis.call('HSET', key, kind, value)
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local at = tonumber(string.match(all[i + 1], '(%S+)$'))
  if at == nil or now - at >= ttl then redis.call('HDEL', key, all[i]) end
end
redis.call('PEXPIRE', key, ttl)
return value
`);

/** A stored value, or undefined when it cannot be read or is older than the TTL. */
export function parseLearned(text: string, now: number): Learned | undefined {
  const parts = text.split(' ').map(Number);
  const [mean, spread, samples, at] = parts;
  if (parts.length !== 4 || mean === undefined || spread === undefined || samples === undefined || at === undefined) return undefined;
  if (!parts.every(Number.isFinite) || samples < 1 || now - at >= LEARNED_TTL_MS) return undefined;
  return { mean, spread, samples };
}

export function redisLearnedTimes(redis: RedisClient, prefix: string, now: () => number = Date.now): LearnedTimesStore {
  const key = learnedTimesKey(prefix);
  return {
    async read() {
      const all = await redis.hgetall(key);
      const at = now();
      const learned = new Map<string, Learned>();
      for (const [kind, text] of Object.entries(all)) {
        const value = parseLearned(text, at);
        if (value !== undefined) learned.set(kind, value);
      }
      return learned;
    },
    async add(kind, sample) {
      const at = now();
      const answer = await ADD_SAMPLE.run(redis, [key], [kind, sample, at, LEARNED_TTL_MS, LEARNING_WEIGHT]);
      const value = typeof answer === 'string' ? parseLearned(answer, at) : undefined;
      if (value === undefined) throw new Error(`the learned-times script answered ${String(answer)} for ${kind}`);
      return value;
    },
  };
}
