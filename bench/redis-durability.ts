// SPEC 25: what each Redis durability setting costs an accepted request.
// For each setting it starts a redis-server of its own on loopback (data
// on this machine's disk, under the system temp folder), with a replica
// where the setting needs one, and times N creates through the producer
// library one after another (each: the registry script and BullMQ's add)
// and N SET, alone and followed by WAIT 1 (the replica has it).
// Settings: AOF off; appendfsync everysec (Redis's default with AOF on);
// appendfsync always; min-replicas-to-write 1; WAIT 1 after each SET;
// redis.replicaAcks 1 (the service's own WAIT 1 after each create).
// Options: --creates N (default 500, --quick 100).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config/index.js';
import { redisAnswers } from '../test/e2e/redis-server.js';
import { replicaSynced, until } from '../test/support/redis-cluster.js';
import { freePort } from '../test/support/free-port.js';
import { benchFlags, benchPrefix, intFlag, printJson, printTable } from './_common.js';

const flags = benchFlags('redis-durability', { creates: { type: 'string' } });
const CREATES = intFlag(flags, 'creates', 500, 100);

interface Setting {
  name: string;
  args: string[];
  replica: boolean;
  /** WAIT 1 after each SET. */
  wait: boolean;
  /** redis.replicaAcks of the producer: the service's WAIT after each create. */
  replicaAcks?: number;
}

const SETTINGS: Setting[] = [
  { name: 'AOF off (RDB snapshots off too)', args: ['--appendonly', 'no'], replica: false, wait: false },
  { name: 'appendfsync everysec', args: ['--appendonly', 'yes', '--appendfsync', 'everysec'], replica: false, wait: false },
  { name: 'appendfsync always', args: ['--appendonly', 'yes', '--appendfsync', 'always'], replica: false, wait: false },
  { name: 'everysec + min-replicas-to-write 1', args: ['--appendonly', 'yes', '--appendfsync', 'everysec', '--min-replicas-to-write', '1', '--min-replicas-max-lag', '10'], replica: true, wait: false },
  { name: 'everysec + WAIT 1 after each SET', args: ['--appendonly', 'yes', '--appendfsync', 'everysec'], replica: true, wait: true },
  { name: 'everysec + redis.replicaAcks 1', args: ['--appendonly', 'yes', '--appendfsync', 'everysec'], replica: true, wait: true, replicaAcks: 1 },
];

function server(port: number, dir: string, args: string[]): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', `dump-${port}.rdb`, '--appendfilename', `aof-${port}`, '--save', '', ...args], { stdio: 'ignore' });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

function stats(ms: number[]): { medianMs: number; p99Ms: number; perSecond: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  const total = ms.reduce((a, b) => a + b, 0);
  return { medianMs: Number(percentile(sorted, 0.5).toFixed(3)), p99Ms: Number(percentile(sorted, 0.99).toFixed(3)), perSecond: Math.round((ms.length * 1000) / total) };
}

async function timed(times: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const start = performance.now();
    await call(i);
    ms.push(performance.now() - start);
  }
  return ms;
}

async function measure(setting: Setting): Promise<Record<string, string | number>> {
  const dir = mkdtempSync(join(tmpdir(), 'pvep-bench-durability-'));
  const children: ChildProcess[] = [];
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let redis: Redis | undefined;
  try {
    children.push(server(port, dir, setting.args));
    if (setting.replica) {
      const replicaPort = await freePort();
      children.push(server(replicaPort, dir, ['--appendonly', 'no', '--replicaof', '127.0.0.1', String(port)]));
      await redisAnswers(`redis://127.0.0.1:${replicaPort}`, 10_000);
      await until(async () => ((await replicaSynced(replicaPort)) ? true : undefined), 20_000, 'the replica did not sync');
    }
    await redisAnswers(url, 10_000);
    redis = new Redis(url);
    const connection = redis;
    const prefix = benchPrefix('durability');
    const config = loadConfig({ env: {}, overrides: { redis: { url, prefix, replicaAcks: setting.replicaAcks ?? 0 } } });
    const client = createProvisionerClient({ redisUrl: url, redis: config.redis, prefix, config });
    await client.listVms();
    const creates = await timed(CREATES, (i) => client.createVm({ name: `d-${i}`, uid: `uid-${i}` }));
    await client.close();
    const sets = await timed(CREATES * 4, async (i) => {
      await connection.set(`${prefix}:set:${i}`, 'x');
      if (setting.wait) {
        const acked = Number(await connection.call('WAIT', '1', '1000'));
        if (acked < 1) throw new Error('WAIT: the replica did not acknowledge within 1 s');
      }
    });
    const c = stats(creates);
    const s = stats(sets);
    return { setting: setting.name, createMedianMs: c.medianMs, createP99Ms: c.p99Ms, createsPerSecond: c.perSecond, setMedianMs: s.medianMs, setP99Ms: s.p99Ms };
  } finally {
    redis?.disconnect();
    for (const child of children) child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Record<string, string | number>[] = [];
for (const setting of SETTINGS) rows.push(await measure(setting));
printTable(`Redis durability settings: ${CREATES} creates through the producer one after another, then ${CREATES * 4} SET (with WAIT 1 where named); a redis-server of its own on loopback, data on ${tmpdir()}`, rows);
printJson('redis-durability', { creates: CREATES, rows });
