// A private redis-server for the Redis-restart variant of the chaos suite
// (SPEC 22): the test's own redis-server (test/e2e/redis-server.ts: its own
// port and directory, AOF on with Redis's default everysec fsync), so a
// restart mid-run keeps what was written. Never the shared Redis.
import { startOwnRedis } from '../e2e/redis-server.js';

export interface PrivateRedis {
  url: string;
  port: number;
  /** Times it was restarted. */
  restarts: number;
  /** Stops it (SIGTERM: a clean shutdown that flushes the AOF), then starts it again on the same port and directory. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const own = await startOwnRedis();
  const handle: PrivateRedis = {
    url: own.url,
    port: own.port,
    restarts: 0,
    async restart(downMs = 500) {
      await own.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await own.start();
      handle.restarts += 1;
    },
    close: () => own.close(),
  };
  return handle;
}
