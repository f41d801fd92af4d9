// SPEC 24: what a token holder's requests cost the shared Redis, counted
// with MONITOR (the commands naming the bench's prefix, those Lua scripts
// run included) against a web process on loopback (no worker: the jobs
// stay waiting). Prints, then one JSON line:
// - Redis commands a second while N clients wait (`waitSeconds`) on one
//   job, and while N wait on N jobs, one each;
// - GET /v1/vms?node=nonexistent&limit=1 among M names from 8 clients at
//   once: p50 and Redis commands per request;
// - Redis commands of a /metrics scrape, and of a second one right after.
// Options: --waiters N (500), --names M (5000), --quick (100 and 1000).
// Runs on a single Redis (MONITOR sees one server).
import { performance } from 'node:perf_hooks';
import { createUncheckedProvisionerClient } from '../src/client.js';
import { loadConfig, type Config } from '../src/config/index.js';
import { silentLogger } from '../src/log.js';
import { createMetrics } from '../src/metrics.js';
import { DesiredStateRegistry } from '../src/queue/registry.js';
import { startWebServer } from '../src/web/server.js';
import { monitorPrefix, type RedisMonitor } from '../test/support/redis-monitor.js';
import { REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable, sleep } from './_common.js';

const flags = benchFlags('redis-cost', { waiters: { type: 'string' }, names: { type: 'string' } });
const WAITERS = intFlag(flags, 'waiters', 500, 100);
const NAMES = intFlag(flags, 'names', 5000, 1000);
const LISTING_CLIENTS = 8;
const LISTING_REQUESTS = flags.quick ? 40 : 160;
const WAIT_SECONDS = 15;
/** From the requests to the window: each wait has made its first reads by then, on a loaded machine too. */
const SETTLE_MS = 6000;
const WINDOW_MS = 3000;

/** Loads the config with the keys this release knows of `wanted`: the same script runs on an older checkout. */
function configFor(prefix: string): Config {
  const base = { redis: { url: REDIS_URL, prefix }, http: { authDisabled: true, host: '127.0.0.1' } };
  try {
    return loadConfig({ env: {}, overrides: { ...base, http: { ...base.http, maxJobWaiters: WAITERS * 2 } } });
  } catch {
    return loadConfig({ env: {}, overrides: base });
  }
}

/** Commands a second over WINDOW_MS, counted from now. */
async function commandsPerSecond(monitor: RedisMonitor): Promise<number> {
  await monitor.settle();
  monitor.reset();
  await sleep(WINDOW_MS);
  await monitor.settle();
  return Math.round((monitor.commands().length * 1000) / WINDOW_MS);
}

async function waitersCost(base: string, monitor: RedisMonitor, jobIds: readonly string[]): Promise<number> {
  const waits = jobIds.map((id) => fetch(`${base}/v1/jobs/${id}?waitSeconds=${WAIT_SECONDS}`).then((res) => res.status));
  await sleep(SETTLE_MS);
  const perSecond = await commandsPerSecond(monitor);
  const statuses = await Promise.all(waits);
  const refused = statuses.filter((s) => s !== 200).length;
  if (refused > 0) process.stderr.write(`bench/redis-cost: ${refused} waits answered other than 200\n`);
  return perSecond;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const prefix = benchPrefix('redis-cost');
const redis = newRedis();
const config = configFor(prefix);
const web = await startWebServer(config, silentLogger(), { metrics: createMetrics(), port: 0 });
const client = createUncheckedProvisionerClient({ redisUrl: REDIS_URL, prefix, config });
const monitor = await monitorPrefix(prefix);
try {
  const jobs: string[] = [];
  for (let i = 0; i < WAITERS; i += 50) {
    jobs.push(...(await Promise.all(Array.from({ length: Math.min(50, WAITERS - i) }, (_, j) => client.createVm({ name: `wait-${i + j}` }).then((r) => r.jobId)))));
  }
  const oneJob = await waitersCost(web.url, monitor, jobs.map(() => jobs[0] ?? ''));
  const manyJobs = await waitersCost(web.url, monitor, jobs);

  const registry = new DesiredStateRegistry(redis, prefix, 3600);
  for (let i = 0; i < NAMES; i += 250) {
    await Promise.all(Array.from({ length: Math.min(250, NAMES - i) }, (_, j) => registry.recordPresent(`name-${i + j}`, `uid-${i + j}`, { name: `name-${i + j}` })));
  }
  // The first filtered page after an upgrade builds the index: not what is measured.
  await fetch(`${web.url}/v1/vms?node=nonexistent&limit=1`);
  await monitor.settle();
  monitor.reset();
  const times: number[] = [];
  await Promise.all(
    Array.from({ length: LISTING_CLIENTS }, async () => {
      for (let i = 0; i < LISTING_REQUESTS / LISTING_CLIENTS; i += 1) {
        const start = performance.now();
        const res = await fetch(`${web.url}/v1/vms?node=nonexistent&limit=1`);
        await res.text();
        times.push(performance.now() - start);
      }
    }),
  );
  await monitor.settle();
  const listingCommands = monitor.commands().length / times.length;
  times.sort((a, b) => a - b);

  const scrapeCost = async (): Promise<number> => {
    await monitor.settle();
    monitor.reset();
    await (await fetch(`${web.url}/metrics`)).text();
    await monitor.settle();
    return monitor.commands().length;
  };
  const firstScrape = await scrapeCost();
  const secondScrape = await scrapeCost();

  printTable(`bench/redis-cost: Redis commands naming the prefix (MONITOR), ${WAITERS} waiters, ${NAMES} names`, [
    { what: `${WAITERS} waits (waitSeconds=${WAIT_SECONDS}) on one job`, value: oneJob, unit: 'commands/s' },
    { what: `${WAITERS} waits on ${WAITERS} jobs, one each`, value: manyJobs, unit: 'commands/s' },
    { what: `GET /v1/vms?node=nonexistent&limit=1, ${LISTING_CLIENTS} clients: p50`, value: Number(percentile(times, 50).toFixed(1)), unit: 'ms' },
    { what: '  the same: p95', value: Number(percentile(times, 95).toFixed(1)), unit: 'ms' },
    { what: '  the same: Redis commands per request', value: Number(listingCommands.toFixed(1)), unit: 'commands' },
    { what: 'GET /metrics, a first scrape', value: firstScrape, unit: 'commands' },
    { what: 'GET /metrics, a second scrape right after', value: secondScrape, unit: 'commands' },
  ]);
  printJson('redis-cost', {
    waiters: WAITERS,
    names: NAMES,
    waitsOneJobCommandsPerSecond: oneJob,
    waitsManyJobsCommandsPerSecond: manyJobs,
    listingP50Ms: Number(percentile(times, 50).toFixed(1)),
    listingCommandsPerRequest: Number(listingCommands.toFixed(1)),
    metricsFirstScrapeCommands: firstScrape,
    metricsSecondScrapeCommands: secondScrape,
  });
} finally {
  monitor.close();
  await client.close();
  await web.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
}
