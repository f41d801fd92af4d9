// The readiness sources of /readyz, read from Redis: a PING, the worker
// heartbeats and the last health result the workers keep there. While
// Redis is down the PING fails at once with the reason in words (SPEC 24).
import type { RedisClient } from '../redis-script.js';
import { readLastHealth } from '../queue/health-store.js';
import { listLiveWorkers } from '../queue/heartbeat.js';
import type { ReadinessSources } from './readiness.js';
import { redisNeverDown, type RedisDownProbe } from './redis-down.js';

export function redisReadinessSources(redis: RedisClient, prefix: string, redisDown: RedisDownProbe = redisNeverDown): ReadinessSources {
  return {
    pingRedis: async () => {
      const before = redisDown();
      if (before !== undefined) throw new Error(before.message);
      try {
        await redis.ping();
      } catch (err) {
        throw new Error(redisDown()?.message ?? `Redis did not answer PING: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    },
    liveWorkers: () => listLiveWorkers(redis, prefix),
    lastHealth: () => readLastHealth(redis, prefix),
  };
}
