// The worker side of bench/queue-overhead.ts, run as compiled JavaScript
// in its own process (SPEC 21): `bare` is a BullMQ worker whose processor
// does nothing; `ours` is the worker service with a provider that does
// nothing. It drains the jobs the parent enqueued under the prefix and
// prints one JSON line: the seconds from the worker's start to the queue
// drained, the CPU seconds this process spent in them (user + system: a
// figure the other processes on a shared machine move less than the
// wall time), and how many jobs failed.
//   node dist/bench/_queue-overhead-worker.js bare|ours <prefix> <concurrency> <redisUrl>
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import { loadConfig } from '../src/config/index.js';
import { silentLogger } from '../src/log.js';
import { keepJobs, VM_QUEUE, WORKER_METRICS } from '../src/queue/queues.js';
import { keyPrefixOf } from '../src/queue/redis-target.js';
import { startWorkerService } from '../src/worker/service.js';
import { NullProvider, bareConnection, benchConnection, benchTarget } from './_common.js';

const BARE_QUEUE = 'bare'; // bench/queue-overhead.ts enqueues on this name

const [mode, prefix, concurrencyText, redisUrl] = process.argv.slice(2);
if ((mode !== 'bare' && mode !== 'ours') || prefix === undefined || redisUrl === undefined) {
  process.stderr.write('usage: _queue-overhead-worker bare|ours <prefix> <concurrency> <redisUrl>\n');
  process.exit(2);
}
const concurrency = Number(concurrencyText);
// On a Cluster (REDIS_CLUSTER_NODES) every key goes under the hash tag {prefix} (SPEC 25).
const target = { ...benchTarget(), url: redisUrl };
const keyPrefix = keyPrefixOf(prefix, target);

/** Waits until nothing is waiting, active or delayed; returns failed jobs. */
async function drained(queue: Queue): Promise<number> {
  for (;;) {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
    if ((counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) === 0) return counts.failed ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Drained {
  seconds: number;
  cpuSeconds: number;
  failed: number;
}

/** The wall and CPU time from `start` (performance.now(), process.cpuUsage()) to now. */
function since(start: number, cpu: NodeJS.CpuUsage): Omit<Drained, 'failed'> {
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - start) / 1000, cpuSeconds: (used.user + used.system) / 1e6 };
}

async function runBare(): Promise<Drained> {
  const observer = benchConnection();
  const queue = new Queue(BARE_QUEUE, { connection: observer, prefix: keyPrefix });
  const start = performance.now();
  const cpu = process.cpuUsage();
  const connection = bareConnection();
  const worker = new Worker(BARE_QUEUE, () => Promise.resolve(undefined), {
    connection,
    prefix: keyPrefix,
    concurrency,
    removeOnComplete: keepJobs(1000, 86400),
    removeOnFail: keepJobs(5000, 604800),
    // Our workers count finished jobs for /metrics (src/worker/service.ts);
    // the bare one does the same BullMQ work, so the ratio stays ours alone.
    metrics: WORKER_METRICS,
  });
  const failed = await drained(queue);
  const took = since(start, cpu);
  await worker.close();
  await queue.close();
  connection.disconnect();
  observer.disconnect();
  return { ...took, failed };
}

async function runOurs(): Promise<Drained> {
  const observer = benchConnection();
  const queue = new Queue(VM_QUEUE, { connection: observer, prefix: keyPrefix });
  const config = loadConfig({ env: {}, overrides: { redis: { ...target, prefix }, jobs: { concurrency } } });
  const start = performance.now();
  const cpu = process.cpuUsage();
  const service = await startWorkerService({ config, provider: new NullProvider(), logger: silentLogger(), schedule: false });
  const failed = await drained(queue);
  const took = since(start, cpu);
  await service.close(1000);
  await queue.close();
  observer.disconnect();
  return { ...took, failed };
}

const result = mode === 'bare' ? await runBare() : await runOurs();
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
