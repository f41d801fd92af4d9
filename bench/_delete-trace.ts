// Where provision.ts's deletes spend their time (issue 15): phases 1 and
// 2 of bench/provision.ts (a worker's warm-ups, one create and delete
// alone, then VMS creates and VMS deletes on two workers), writing the
// simulator's request log of the lone delete and of the deletes, the
// jobs' times (BullMQ timestamp, processedOn, finishedOn), the capacity
// counters and each process's CPU over the delete phase to OUT/trace.json.
// With --profile the workers and the simulator run under node --cpu-prof
// (profiles in OUT/; bench/_cpuprofile-top.ts prints them).
//   npx tsx bench/_delete-trace.ts OUT [--profile] [--vms N]
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Queue } from 'bullmq';
import { createProvisionerClient, type ProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config/index.js';
import { listLiveWorkers } from '../src/queue/heartbeat.js';
import { REDIS_URL, benchPrefix, deletePrefix, newRedis, sleep } from './_common.js';
import { serviceEnv, startCli, startSimChild, type Child } from './_processes.js';

const out = process.argv[2] ?? '/tmp/delete-trace';
const profile = process.argv.includes('--profile');
const vmsAt = process.argv.indexOf('--vms');
const VMS = vmsAt > 0 ? Number(process.argv[vmsAt + 1]) : 200;
const nodeArgs = profile ? ['--cpu-prof', `--cpu-prof-dir=${out}`] : [];

/** utime + stime of a process, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const prefix = benchPrefix('delete-trace');
const redis = newRedis();
const sim = await startSimChild({ vms: 3, timeScale: 0.01, nodeArgs });
const workers: Child[] = [];
let client: ProvisionerClient | undefined;
const queueRedis = newRedis();
const queue = new Queue('vm', { connection: queueRedis, prefix });
try {
  const config = loadConfig({ env: {}, overrides: { redis: { url: REDIS_URL, prefix } } });
  client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });
  const env = serviceEnv(sim, REDIS_URL, prefix, { JOBS_CONCURRENCY: '8', BUDGETS_POLL_MS: '10', PROXMOX_MAX_REQUESTS_PER_SECOND: '2000' });
  const start = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i += 1) workers.push(startCli(['worker'], env, nodeArgs));
    while ((await listLiveWorkers(redis, prefix)).length < workers.length) await sleep(100);
  };
  const run = async (names: string[], verb: 'create' | 'delete'): Promise<{ seconds: number; ids: string[] }> => {
    const t = performance.now();
    const ids = await Promise.all(names.map(async (name) => (verb === 'create' ? client!.createVm({ name, uid: `uid-${name}` }) : client!.deleteVm({ name })).then((r) => r.jobId)));
    const enqueued = performance.now() - t;
    const views = await Promise.all(ids.map((id) => client!.waitForJob(id, { timeoutMs: 600_000 })));
    const bad = views.filter((v) => v.state !== 'completed');
    if (bad.length > 0) throw new Error(`${verb}: ${bad.length} not completed`);
    const seconds = (performance.now() - t) / 1000;
    process.stdout.write(`${names.length} ${verb}s: ${seconds.toFixed(3)} s (enqueued in ${enqueued.toFixed(0)} ms)\n`);
    return { seconds, ids };
  };
  const jobTimes = async (ids: string[]): Promise<unknown[]> =>
    Promise.all(ids.map(async (id) => {
      const j = await queue.getJob(id);
      return { id, name: (j?.data as { name?: string }).name, enqueued: j?.timestamp, processed: j?.processedOn, finished: j?.finishedOn, attempts: j?.attemptsMade, logs: (await queue.getJobLogs(id)).logs };
    }));
  await start(1);
  for (const w of ['warm-0', 'warm-1']) {
    await run([w], 'create');
    await run([w], 'delete');
  }
  await run(['solo-0'], 'create');
  await sim.control('DELETE', '/_sim/requests');
  const solo = await run(['solo-0'], 'delete');
  const soloRequests = (await sim.control<{ requests: unknown[] }>('GET', '/_sim/requests')).requests;
  const soloJobs = await jobTimes(solo.ids);
  await start(1);
  const names = Array.from({ length: VMS }, (_, i) => `prov-${i}`);
  await run(names, 'create');
  await sim.control('DELETE', '/_sim/requests');
  const capBefore = await sim.control<unknown>('GET', '/_sim/capacity');
  const pids = [sim.child.pid, ...workers.map((w) => w.pid)];
  // The sim child runs node under tsx's cli: its pid is node's.
  const cpuBefore = pids.map(cpuMs);
  const deletes = await run(names, 'delete');
  const cpuAfter = pids.map(cpuMs);
  const capAfter = await sim.control<unknown>('GET', '/_sim/capacity');
  const requests = (await sim.control<{ requests: unknown[] }>('GET', '/_sim/requests')).requests;
  const jobs = await jobTimes(deletes.ids);
  writeFileSync(`${out}/trace.json`, JSON.stringify({ solo: { seconds: solo.seconds, requests: soloRequests, jobs: soloJobs }, deletes: { seconds: deletes.seconds, requests, jobs }, capBefore, capAfter, cpuMs: pids.map((p, i) => ({ pid: p, ms: (cpuAfter[i] ?? 0) - (cpuBefore[i] ?? 0) })) }, null, 1));
  process.stdout.write(`cpu over the deletes (sim, workers): ${pids.map((p, i) => (cpuAfter[i] ?? 0) - (cpuBefore[i] ?? 0)).join(', ')} ms\n`);
} finally {
  await client?.close();
  await queue.close();
  queueRedis.disconnect();
  await Promise.all(workers.map((w) => w.stop(5000)));
  await sim.child.stop();
  await deletePrefix(redis, prefix);
  redis.disconnect();
}
