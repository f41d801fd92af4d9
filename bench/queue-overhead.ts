// SPEC 21 "Queue overhead": our worker (validation, the generation check
// against the registry, the per-name lock taken, renewed and released,
// the last-known write) running create jobs with a provider that does
// nothing, against a bare BullMQ worker with the same concurrency on the
// same Redis running a processor that does nothing. Both workers run as
// compiled JavaScript, each in a process of its own
// (bench/_queue-overhead-worker.ts on dist/, rebuilt when stale); this
// process only enqueues and checks. Bar: jobs/s ratio 0.8 or better.
// Options: --jobs N, --concurrency N, --rounds N, --quick, --profile DIR
// (a CPU profile of each worker process, node --cpu-prof,
// read with bench/_cpuprofile-top.ts), --cluster (both on a six-node Redis
// Cluster this bench starts on loopback, SPEC 25; REDIS_CLUSTER_NODES set
// instead runs them on that cluster).

import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import { createProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config/index.js';
import type { RedisClient } from '../src/queue/connection.js';
import { VM_QUEUE } from '../src/queue/queues.js';
import { keyPrefixOf } from '../src/queue/redis-target.js';
import { startOwnCluster, type OwnCluster } from '../test/support/redis-cluster.js';
import { ensureBuilt, transpileBenchFiles } from './_compiled.js';
import { REDIS_URL, benchConnection, benchFlags, benchPrefix, benchTarget, deletePrefix, intFlag, printJson, printTable } from './_common.js';

const flags = benchFlags('queue-overhead', { jobs: { type: 'string' }, concurrency: { type: 'string' }, rounds: { type: 'string' }, profile: { type: 'string' }, cluster: { type: 'boolean' } });
// The children inherit REDIS_CLUSTER_NODES.
const ownCluster: OwnCluster | undefined = flags.values.cluster === true ? await startOwnCluster() : undefined;
if (ownCluster !== undefined) process.env.REDIS_CLUSTER_NODES = ownCluster.nodes.join(',');
const TARGET = benchTarget();
const WHERE = TARGET.clusterNodes === undefined ? `same Redis (${REDIS_URL})` : `same Redis Cluster (${TARGET.clusterNodes.length} nodes given)`;
const JOBS = intFlag(flags, 'jobs', 10_000, 2_000);
const CONCURRENCY = intFlag(flags, 'concurrency', 16, 16);
const ROUNDS = intFlag(flags, 'rounds', 3, 1);
const PROFILE_DIR = typeof flags.values.profile === 'string' ? flags.values.profile : undefined;
const BAR = 0.8;

const build = ensureBuilt();
const [WORKER_JS] = transpileBenchFiles(['_queue-overhead-worker.ts', '_common.ts']);

interface Round {
  worker: 'bare BullMQ' | 'pve-provisioner';
  round: number;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  /** CPU time of the worker's process per job, user + system. */
  cpuMicrosPerJob: number;
}

/** Runs the compiled worker child on the prefix's jobs until they are drained: its wall and CPU seconds. */
async function runWorkerChild(mode: 'bare' | 'ours', prefix: string, round: number): Promise<{ seconds: number; cpuSeconds: number }> {
  const profile = PROFILE_DIR !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${mode}-${round}.cpuprofile`] : [];
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [...profile, WORKER_JS ?? '', mode, prefix, String(CONCURRENCY), REDIS_URL], { encoding: 'utf8' });
  process.stderr.write(stderr);
  const { seconds, cpuSeconds, failed } = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { seconds: number; cpuSeconds: number; failed: number };
  if (failed > 0) throw new Error(`${mode} worker: ${failed} jobs failed`);
  return { seconds, cpuSeconds };
}

async function bareRound(redis: RedisClient, round: number): Promise<Round> {
  const prefix = benchPrefix('qo-bare');
  const queue = new Queue('bare', { connection: redis, prefix: keyPrefixOf(prefix, TARGET) });
  try {
    for (let i = 0; i < JOBS; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, JOBS - i) }, (_, k) => ({ name: 'create', data: { name: `bench-${i + k}` } }));
      await queue.addBulk(batch);
    }
    const { seconds, cpuSeconds } = await runWorkerChild('bare', prefix, round);
    return { worker: 'bare BullMQ', round, jobs: JOBS, seconds, jobsPerSecond: JOBS / seconds, cpuMicrosPerJob: (cpuSeconds * 1e6) / JOBS };
  } finally {
    await queue.close();
    await deletePrefix(redis, prefix);
  }
}

async function ourRound(redis: RedisClient, round: number): Promise<Round> {
  const prefix = benchPrefix('qo-ours');
  const config = loadConfig({ env: {}, overrides: { redis: { ...TARGET, prefix }, jobs: { concurrency: CONCURRENCY } } });
  const client = createProvisionerClient({ redisUrl: REDIS_URL, redis: config.redis, prefix, config });
  const queue = new Queue(VM_QUEUE, { connection: redis, prefix: keyPrefixOf(prefix, TARGET) });
  try {
    // One call first: the producer's connection must be up before calls run concurrently (see docs/benchmarks.md).
    await client.listVms();
    // Through the producer, as a backend would: each name gets its desired state and generation.
    const names = Array.from({ length: JOBS }, (_, i) => `bench-${i}`);
    for (let i = 0; i < names.length; i += 200) await Promise.all(names.slice(i, i + 200).map((name) => client.createVm({ name, uid: `uid-${name}` })));
    const { seconds, cpuSeconds } = await runWorkerChild('ours', prefix, round);
    const sample = await client.getVm(names[names.length - 1] ?? '');
    if (sample?.lastKnown?.state !== 'Running') throw new Error('our worker: the last job did not record its VM as Running');
    return { worker: 'pve-provisioner', round, jobs: JOBS, seconds, jobsPerSecond: JOBS / seconds, cpuMicrosPerJob: (cpuSeconds * 1e6) / JOBS };
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

const loadBefore = loadavg().map((l) => Number(l.toFixed(2)));
const redis = benchConnection();
const rounds: Round[] = [];
try {
  for (let round = 1; round <= ROUNDS; round += 1) {
    rounds.push(await bareRound(redis, round));
    rounds.push(await ourRound(redis, round));
  }
} finally {
  redis.disconnect();
  await ownCluster?.close();
}

const roundsOf = (worker: Round['worker']): Round[] => rounds.filter((r) => r.worker === worker);
const bare = median(roundsOf('bare BullMQ').map((r) => r.jobsPerSecond));
const ours = median(roundsOf('pve-provisioner').map((r) => r.jobsPerSecond));
const ratio = ours / bare;
// The bar is the jobs/s ratio; the CPU a job costs each worker process says where the gap is when the machine is shared.
const bareCpu = median(roundsOf('bare BullMQ').map((r) => r.cpuMicrosPerJob));
const oursCpu = median(roundsOf('pve-provisioner').map((r) => r.cpuMicrosPerJob));
const loadAfter = loadavg().map((l) => Number(l.toFixed(2)));
printTable(`queue overhead: ${JOBS} jobs per round, concurrency ${CONCURRENCY}, ${WHERE}, both compiled (dist/ at ${build.commit}), load ${loadBefore.join(' ')} -> ${loadAfter.join(' ')}`, rounds.map((r) => ({ ...r, seconds: Number(r.seconds.toFixed(3)), jobsPerSecond: Math.round(r.jobsPerSecond), cpuMicrosPerJob: Math.round(r.cpuMicrosPerJob) })));
printTable('summary (medians)', [
  { bareJobsPerSecond: Math.round(bare), oursJobsPerSecond: Math.round(ours), ratio: Number(ratio.toFixed(3)), bar: BAR, meets: ratio >= BAR ? 'yes' : 'NO', bareCpuMicrosPerJob: Math.round(bareCpu), oursCpuMicrosPerJob: Math.round(oursCpu) },
]);
printJson('queue-overhead', { redis: TARGET.clusterNodes === undefined ? 'single' : 'cluster', build: { compiled: true, commit: build.commit, rebuilt: build.rebuilt, dist: build.dist }, loadAverage: { before: loadBefore, after: loadAfter }, jobs: JOBS, concurrency: CONCURRENCY, rounds, bareJobsPerSecond: bare, oursJobsPerSecond: ours, ratio, bar: BAR, meetsBar: ratio >= BAR, bareCpuMicrosPerJob: bareCpu, oursCpuMicrosPerJob: oursCpu });
