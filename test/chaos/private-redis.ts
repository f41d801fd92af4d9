// A private redis-server for the Redis-restart variant of the chaos suite
// (SPEC 22): its own port and directory, AOF on, so a restart mid-run
// keeps what was written. Never the shared Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface PrivateRedis {
  url: string;
  port: number;
  /** Times it was restarted. */
  restarts: number;
  /** Stops it (SIGTERM: a clean shutdown that flushes the AOF), then starts it again on the same port and directory. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function answers(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    try {
      await probe.connect();
      // Loading the AOF answers LOADING until done.
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis at ${url} did not answer within ${timeoutMs} ms`);
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pvep-chaos-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
    await answers(url, 10_000);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await launch();
  const handle: PrivateRedis = {
    url,
    port,
    restarts: 0,
    async restart(downMs = 500) {
      await stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
      handle.restarts += 1;
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}
