// SPEC 21 "Queue overhead": our worker (validation, the generation check
// against the registry, the per-name lock taken, renewed and released,
// the last-known write) running create jobs with a provider that does
// nothing, against a bare BullMQ worker with the same concurrency on the
// same Redis running a processor that does nothing. Bar: jobs/s ratio 0.5
// or better. Options: --jobs N, --concurrency N, --rounds N, --quick.
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { createProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { keepJobs, VM_QUEUE } from '../src/queue/queues.js';
import { startWorkerService } from '../src/queue/worker-service.js';
import { NullProvider, REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable, sleep } from './_common.js';

const flags = benchFlags('queue-overhead', { jobs: { type: 'string' }, concurrency: { type: 'string' }, rounds: { type: 'string' } });
const JOBS = intFlag(flags, 'jobs', 10_000, 2_000);
const CONCURRENCY = intFlag(flags, 'concurrency', 16, 16);
const ROUNDS = intFlag(flags, 'rounds', 3, 1);
const BAR = 0.5;

interface Round {
  worker: 'bare BullMQ' | 'pve-provisioner';
  round: number;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
}

/** Waits until nothing is waiting, active or delayed; returns failed jobs. */
async function drained(queue: Queue): Promise<number> {
  for (;;) {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
    if ((counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) === 0) return counts.failed ?? 0;
    await sleep(20);
  }
}

async function bareRound(redis: Redis, round: number): Promise<Round> {
  const prefix = benchPrefix('qo-bare');
  const queue = new Queue('bare', { connection: redis, prefix });
  try {
    for (let i = 0; i < JOBS; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, JOBS - i) }, (_, k) => ({ name: 'create', data: { name: `bench-${i + k}` } }));
      await queue.addBulk(batch);
    }
    const start = performance.now();
    const connection = newRedis();
    const worker = new Worker('bare', () => Promise.resolve(undefined), {
      connection,
      prefix,
      concurrency: CONCURRENCY,
      removeOnComplete: keepJobs(1000, 86400),
      removeOnFail: keepJobs(5000, 604800),
    });
    const failed = await drained(queue);
    const seconds = (performance.now() - start) / 1000;
    await worker.close();
    connection.disconnect();
    if (failed > 0) throw new Error(`bare worker: ${failed} jobs failed`);
    return { worker: 'bare BullMQ', round, jobs: JOBS, seconds, jobsPerSecond: JOBS / seconds };
  } finally {
    await queue.close();
    await deletePrefix(redis, prefix);
  }
}

async function ourRound(redis: Redis, round: number): Promise<Round> {
  const prefix = benchPrefix('qo-ours');
  const config = loadConfig({ env: {}, overrides: { redis: { url: REDIS_URL, prefix }, jobs: { concurrency: CONCURRENCY } } });
  const client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });
  const queue = new Queue(VM_QUEUE, { connection: redis, prefix });
  try {
    // One call first: the producer's connection must be up before calls run concurrently (see docs/benchmarks.md).
    await client.listVms();
    // Through the producer, as a backend would: each name gets its desired state and generation.
    const names = Array.from({ length: JOBS }, (_, i) => `bench-${i}`);
    for (let i = 0; i < names.length; i += 200) await Promise.all(names.slice(i, i + 200).map((name) => client.createVm({ name, uid: `uid-${name}` })));
    const start = performance.now();
    const service = await startWorkerService({ config, provider: new NullProvider(), logger: silentLogger(), schedule: false });
    const failed = await drained(queue);
    const seconds = (performance.now() - start) / 1000;
    await service.close(1000);
    if (failed > 0) throw new Error(`our worker: ${failed} jobs failed`);
    const sample = await client.getVm(names[names.length - 1] ?? '');
    if (sample?.lastKnown?.state !== 'Running') throw new Error('our worker: the last job did not record its VM as Running');
    return { worker: 'pve-provisioner', round, jobs: JOBS, seconds, jobsPerSecond: JOBS / seconds };
  } finally {
    await client.close();
    await queue.close();
    await deletePrefix(redis, prefix);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const redis = newRedis();
const rounds: Round[] = [];
try {
  for (let round = 1; round <= ROUNDS; round += 1) {
    rounds.push(await bareRound(redis, round));
    rounds.push(await ourRound(redis, round));
  }
} finally {
  redis.disconnect();
}

const bare = median(rounds.filter((r) => r.worker === 'bare BullMQ').map((r) => r.jobsPerSecond));
const ours = median(rounds.filter((r) => r.worker === 'pve-provisioner').map((r) => r.jobsPerSecond));
const ratio = ours / bare;
printTable(`queue overhead: ${JOBS} jobs per round, concurrency ${CONCURRENCY}, same Redis (${REDIS_URL})`, rounds.map((r) => ({ ...r, seconds: Number(r.seconds.toFixed(3)), jobsPerSecond: Math.round(r.jobsPerSecond) })));
printTable('summary (medians)', [{ bareJobsPerSecond: Math.round(bare), oursJobsPerSecond: Math.round(ours), ratio: Number(ratio.toFixed(3)), bar: BAR, meets: ratio >= BAR ? 'yes' : 'NO' }]);
printJson('queue-overhead', { jobs: JOBS, concurrency: CONCURRENCY, rounds, bareJobsPerSecond: bare, oursJobsPerSecond: ours, ratio, bar: BAR, meetsBar: ratio >= BAR });
