// The learned wait times (src/provider/waits/learned-times.ts) in Redis, shared
// by every worker process on the prefix and kept across restarts (SPEC
// 26, 28). One hash under the hash tag {prefix} (SPEC 25, as the
// request budget's keys: keys.learnedTimes), field the kind (`qmstart`, `address:<image>`),
// value `<mean> <spread> <samples> <at>`, `at` the last sample's time
// (`samples` 0: a guess, learned-times.ts). A sample is merged by a
// script, so two workers' samples both count in the running mean and
// spread, one after the other, neither overwrites; a guess never
// replaces a sample.
// A kind not seen for LEARNED_TTL_MS is dropped; the hash goes when no
// kind was seen for that long.
import { LuaScript, type RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import { LEARNING_WEIGHT, type Learned, type LearnedTimesStore } from '../provider/waits/learned-times.js';

/** How long a learned time is kept without a new sample: images and templates change, so what is older says little. */
export const LEARNED_TTL_MS = 30 * 24 * 3600 * 1000;

// KEYS[1] the hash; ARGV kind, sample, now (ms), ttl (ms), weight, mode ('sample' or 'guess').
// The same rules as mergeSample and mergeGuess: a sample merges into a stored sample and replaces a guess;
// a guess is stored only where no sample is, and leaves a stored sample as it is.
const ADD_SAMPLE = new LuaScript(`
local key, kind, mode = KEYS[1], ARGV[1], ARGV[6]
local sample, now, ttl, weight = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local mean, spread, samples, at = sample, 0, 1, now
if mode == 'guess' then samples = 0 end
local before = redis.call('HGET', key, kind)
if before then
  local m, s, n, t = string.match(before, '^(%S+) (%S+) (%S+) (%S+)$')
  m, s, n, t = tonumber(m), tonumber(s), tonumber(n), tonumber(t)
  if m and s and n and t and n >= 1 and now - t < ttl then
    if mode == 'guess' then
      mean, spread, samples, at = m, s, n, t
    else
      mean = m + weight * (sample - m)
      spread = s + weight * (math.abs(sample - m) - s)
      samples = n + 1
    end
  end
end
local value = string.format('%.17g %.17g %d %d', mean, spread, samples, at)
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
  if (!parts.every(Number.isFinite) || samples < 0 || now - at >= LEARNED_TTL_MS) return undefined;
  return { mean, spread, samples };
}

export function redisLearnedTimes(redis: RedisClient, prefix: string, now: () => number = Date.now): LearnedTimesStore {
  const key = keys.learnedTimes(prefix);
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
    add: (kind, sample) => merge(kind, sample, 'sample'),
    guess: (kind, guessMs) => merge(kind, guessMs, 'guess'),
  };

  async function merge(kind: string, ms: number, mode: 'sample' | 'guess'): Promise<Learned> {
    const at = now();
    const answer = await ADD_SAMPLE.run(redis, [key], [kind, ms, at, LEARNED_TTL_MS, LEARNING_WEIGHT, mode]);
    const value = typeof answer === 'string' ? parseLearned(answer, at) : undefined;
    if (value === undefined) throw new Error(`the learned-times script answered ${String(answer)} for ${kind}`);
    return value;
  }
}
