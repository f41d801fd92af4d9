// Counts the commands Redis runs for a key prefix, those Lua scripts run
// included (MONITOR on a socket of its own): the Redis work a call costs,
// whoever else uses the server meanwhile. A single Redis only: tests that
// use it skip under `npm run test:cluster` (MONITOR is per server).
// A raw socket, as ioredis's monitor() mistakes lines for replies on a busy server.
import { connect, type Socket } from 'node:net';
import { REDIS_CLUSTER_NODES, REDIS_URL } from './redis.js';

/** MONITOR sees one server: false under `npm run test:cluster`. */
export const CAN_MONITOR = REDIS_CLUSTER_NODES.length === 0;

export interface RedisMonitor {
  /** Commands naming the prefix since the last reset, by name (EVALSHA, HMGET, ...). */
  commands(): string[];
  reset(): void;
  /** Waits until an ECHO sent now has come through the monitor, so every command sent before it is counted. */
  settle(): Promise<void>;
  close(): void;
}

function send(socket: Socket, ...args: string[]): void {
  socket.write(`*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`);
}

function open(): Promise<Socket> {
  const url = new URL(REDIS_URL);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port || 6379), url.hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

export async function monitorPrefix(prefix: string): Promise<RedisMonitor> {
  const [watch, source] = await Promise.all([open(), open()]);
  let seen: string[] = [];
  const marks = new Map<string, () => void>();
  let pending = '';
  let started!: () => void;
  const monitoring = new Promise<void>((resolve) => (started = resolve));
  watch.setEncoding('utf8');
  watch.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\r\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '+OK') started();
      // +1700000000.123456 [0 127.0.0.1:5000] "evalsha" "..." ...
      const name = /^\+\S+ \[[^\]]*\] "([^"]*)"/.exec(line)?.[1];
      if (name === undefined) continue;
      const mark = /"echo" "(monitor-mark-\d+)"/i.exec(line)?.[1];
      if (mark !== undefined) marks.get(mark)?.();
      else if (line.includes(prefix)) seen.push(name.toUpperCase());
    }
  });
  send(watch, 'MONITOR');
  await monitoring;
  source.on('data', () => undefined);
  let markCount = 0;
  return {
    commands: () => [...seen],
    reset: () => {
      seen = [];
    },
    settle: async () => {
      const mark = `monitor-mark-${markCount++}`;
      const through = new Promise<void>((resolve) => marks.set(mark, resolve));
      send(source, 'ECHO', mark);
      await through;
      marks.delete(mark);
    },
    close: () => {
      watch.destroy();
      source.destroy();
    },
  };
}
