// SPEC 21 "Memory": the resident set size of one worker process (run
// through tsx, as `npm run` does in development) idle, then with 1,000
// jobs waiting and 100 running (concurrency 100, creates that hold until
// cancelled). Options: --waiting N, --running N, --quick (same sizes,
// shorter sampling).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config/index.js';
import { VM_QUEUE } from '../src/queue/queues.js';
import { REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable, rssMiB, sleep } from './_common.js';
import { ROOT } from './_processes.js';

const flags = benchFlags('memory', { waiting: { type: 'string' }, running: { type: 'string' } });
const RUNNING = intFlag(flags, 'running', 100, 100);
const WAITING = intFlag(flags, 'waiting', 1_000, 1_000);
const SAMPLES = flags.quick ? 5 : 20;

async function sampleRss(pid: number): Promise<{ max: number; last: number }> {
  let max = 0;
  let last = 0;
  for (let i = 0; i < SAMPLES; i += 1) {
    last = rssMiB(pid);
    max = Math.max(max, last);
    await sleep(250);
  }
  return { max, last };
}

const prefix = benchPrefix('memory');
const redis = newRedis();
const config = loadConfig({ env: {}, overrides: { redis: { url: REDIS_URL, prefix } } });
const client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });
const queue = new Queue(VM_QUEUE, { connection: redis, prefix });
const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', '_hold-worker.ts')], {
  cwd: ROOT,
  env: { ...process.env, REDIS_URL, REDIS_PREFIX: prefix, JOBS_CONCURRENCY: String(RUNNING), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const pid = child.pid ?? -1;
try {
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => (b.toString().includes('worker ready') ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before it was ready`)));
  });
  await sleep(1000);
  const idle = await sampleRss(pid);

  await client.listVms(); // the producer's connection up before concurrent calls (see docs/benchmarks.md)
  const total = RUNNING + WAITING;
  for (let i = 0; i < total; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, total - i) }, (_, k) => client.createVm({ name: `mem-${i + k}`, uid: `uid-${i + k}`, userData: `#cloud-config\n# ${'x'.repeat(2000)}\n` })));
  }
  for (;;) {
    const counts = await queue.getJobCounts('active', 'waiting');
    if (counts.active === RUNNING && counts.waiting === WAITING) break;
    await sleep(100);
  }
  const loaded = await sampleRss(pid);
  const counts = await queue.getJobCounts('active', 'waiting');
  const rows = [
    { state: 'idle', running: 0, waiting: 0, rssMiB: Number(idle.last.toFixed(1)), maxRssMiB: Number(idle.max.toFixed(1)) },
    { state: 'loaded', running: counts.active ?? 0, waiting: counts.waiting ?? 0, rssMiB: Number(loaded.last.toFixed(1)), maxRssMiB: Number(loaded.max.toFixed(1)) },
  ];
  printTable(`worker RSS (pid ${pid}, node ${process.version} + tsx, ${SAMPLES} samples 250 ms apart; jobs carry 2 KB of user-data)`, rows);
  printJson('memory', { running: RUNNING, waiting: WAITING, idleRssMiB: idle.last, loadedRssMiB: loaded.last, loadedMaxRssMiB: loaded.max, deltaMiB: loaded.last - idle.last });
} finally {
  child.kill('SIGKILL');
  await client.close();
  await queue.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
}
