// Worker liveness for /readyz: each worker process keeps a key
// `<prefix>:workers:<id>` alive with a TTL; a process that dies stops
// renewing it and drops out of the list within the TTL.
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { keys } from './keys.js';

export interface WorkerBeat {
  id: string;
  host: string;
  pid: number;
  startedAt: string;
  concurrency: number;
  at: string;
}

export interface Heartbeat {
  stop(): Promise<void>;
}

const HEARTBEAT_EVERY_MS = 5_000;

export function startHeartbeat(redis: Redis, prefix: string, id: string, concurrency: number, everyMs = HEARTBEAT_EVERY_MS): Heartbeat {
  const startedAt = new Date().toISOString();
  const key = keys.worker(prefix, id);
  const beat = async (): Promise<void> => {
    const value: WorkerBeat = { id, host: hostname(), pid: process.pid, startedAt, concurrency, at: new Date().toISOString() };
    // Three missed beats and the worker counts as gone.
    await redis.set(key, JSON.stringify(value), 'PX', everyMs * 3);
  };
  const tick = (): void => {
    beat().catch(() => undefined); // Redis down: the next beat tries again.
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await redis.del(key).catch(() => undefined);
    },
  };
}

export async function listLiveWorkers(redis: Redis, prefix: string): Promise<WorkerBeat[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', keys.workerPattern(prefix), 'COUNT', 200);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  if (found.length === 0) return [];
  const values = await redis.mget(...found);
  return values.flatMap((text) => {
    if (text === null) return [];
    try {
      return [JSON.parse(text) as WorkerBeat];
    } catch {
      return [];
    }
  });
}
