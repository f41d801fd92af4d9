// A redis-server of a test's own (never the shared one on 6379): a free
// port, its own directory, AOF on, stopped and started at will.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../support/free-port.js';

export interface OwnRedis {
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Resolves once PING answers PONG; rejects after timeoutMs. */
export async function redisAnswers(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis at ${url} did not answer within ${timeoutMs} ms`);
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pvep-own-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const handle: OwnRedis = {
    url,
    port,
    dir,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
      await redisAnswers(url, 10_000);
    },
    async stop() {
      const running = child;
      if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
    async close() {
      await handle.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await handle.start();
  return handle;
}
