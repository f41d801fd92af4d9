// The readiness sources of /readyz, read from Redis: a PING, the worker
// heartbeats and the last health result the workers keep there.
import type { Redis } from 'ioredis';
import { readLastHealth } from '../queue/health-store.js';
import { listLiveWorkers } from '../queue/heartbeat.js';
import type { ReadinessSources } from './readiness.js';

export function redisReadinessSources(redis: Redis, prefix: string): ReadinessSources {
  return {
    pingRedis: async () => {
      await redis.ping();
    },
    liveWorkers: () => listLiveWorkers(redis, prefix),
    lastHealth: () => readLastHealth(redis, prefix),
  };
}
