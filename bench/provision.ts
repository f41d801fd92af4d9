// SPEC 21 "Provisioning" and SPEC 26's Proxmox API figures, against the
// simulator with the task times of F16 and F21 scaled down 100 times
// (timeScale 0.01; budgets.pollMs scaled the same way, 1000 -> 10 ms).
//   1. One worker process alone: two warm-up creates and deletes, one
//      after the other (so the process has learned how long each wait
//      takes, and how steady that is: two samples), then one create
//      and one delete alone, timed; that create's Proxmox calls, steps
//      and polls apart (callsPerCreate, pollsPerCreate; bar: 15 or fewer
//      together).
//   2. A second worker process joins: 200 creates, then 200 deletes. The
//      ideal the concurrency allows is the time of one create (and one
//      delete) alone times the waves the two workers' concurrency needs.
//      Bar: total within 1.2 times the ideal.
//   3. Two fresh worker processes with room for 100 jobs at once: a
//      small warm-up, then 100 creates at once, every call counted
//      (callsPerCreateAt100; bar: 8 or fewer).
// peakRequestsPerSecond is the highest count of requests the simulator
// saw in one second (their `at`), over all measured phases.
// Options: --vms N (creates of phase 2), --concurrency N (per worker,
// phase 2), --at-once N (phase 3), --quick.
import { performance } from 'node:perf_hooks';
import { createProvisionerClient, type ProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config/index.js';
import { listLiveWorkers } from '../src/queue/heartbeat.js';
import type { Redis } from 'ioredis';
import { REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable, sleep } from './_common.js';
import { serviceEnv, startCli, startSimChild, stopRun, type Child, type SimChild } from './_processes.js';

const flags = benchFlags('provision', { vms: { type: 'string' }, concurrency: { type: 'string' }, 'at-once': { type: 'string' } });
const VMS = intFlag(flags, 'vms', 200, 40);
const CONCURRENCY = intFlag(flags, 'concurrency', 8, 8);
const AT_ONCE = intFlag(flags, 'at-once', 100, 100);
const WORKERS = 2;
const TIME_SCALE = 0.01;
/** The request budget (SPEC 26) at its default of 20 a second, on the simulator's clock: 100 times faster, so 2,000. */
const BUDGET_PER_SECOND = Math.round(20 / TIME_SCALE);
const POLL_MS = 10;
const BAR = 1.2;
const BAR_ALONE = 15;
const BAR_AT_ONCE = 8;

interface SimRequest {
  at: string;
  method: string;
  path: string;
  params: Record<string, string>;
}

/** Templates sit at four-digit VMIDs (9001, 9002, ...), our VMs in proxmox.vmidRange. */
const TEMPLATE_CONFIG = /\/qemu\/\d{4}\/config$/;

/** `/api2/json/nodes/pve1/qemu/100123/config` -> `GET nodes/{node}/qemu/{vmid}/config`. */
function endpoint(r: SimRequest): string {
  const path = r.path
    .replace(/^\/api2\/json\//, '')
    .replace(/nodes\/[^/]+/, 'nodes/{node}')
    .replace(/qemu\/\d{4}\/config/, 'qemu/{template}/config')
    .replace(/qemu\/\d+/, 'qemu/{vmid}')
    .replace(/storage\/[^/]+/, 'storage/{storage}')
    .replace(/content\/[^/]+$/, 'content/{volid}')
    .replace(/tasks\/[^/]+/, 'tasks/{upid}');
  const type = r.params.type === undefined ? '' : `?type=${r.params.type}`;
  return `${r.method} ${path}${type}`;
}

/**
 * The calls SPEC 13's steps need, per create: the node listing for
 * placement, one VM listing to find the name, the template's config, and
 * every write (clone, upload, config, resize, start). Every other read is
 * a poll: task status and listings, the clone's config, the running and
 * address waits.
 */
function stepCalls(requests: SimRequest[], creates: number): number {
  const writes = requests.filter((r) => r.method !== 'GET').length;
  const placement = requests.filter((r) => r.path.endsWith('/cluster/resources') && r.params.type === 'node').length;
  const templateReads = requests.filter((r) => r.method === 'GET' && TEMPLATE_CONFIG.test(r.path)).length;
  const findByName = Math.min(creates, requests.filter((r) => r.path.endsWith('/cluster/resources') && r.params.type === 'vm').length);
  return writes + placement + templateReads + findByName;
}

/** The highest number of requests in one wall-clock second. */
function peakPerSecond(requests: SimRequest[]): number {
  const perSecond = new Map<number, number>();
  for (const r of requests) {
    const second = Math.floor(Date.parse(r.at) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  return Math.max(0, ...perSecond.values());
}

function perCreate(requests: SimRequest[], creates: number): Record<string, number> {
  const byEndpoint = new Map<string, number>();
  for (const r of requests) byEndpoint.set(endpoint(r), (byEndpoint.get(endpoint(r)) ?? 0) + 1);
  return Object.fromEntries([...byEndpoint].sort((a, b) => b[1] - a[1]).map(([call, n]) => [call, Number((n / creates).toFixed(2))]));
}

async function runAll(client: ProvisionerClient, names: string[], verb: 'create' | 'delete'): Promise<{ seconds: number; failed: string[] }> {
  const start = performance.now();
  const ids = await Promise.all(names.map(async (name) => (verb === 'create' ? client.createVm({ name, uid: `uid-${name}` }) : client.deleteVm({ name })).then((r) => r.jobId)));
  const views = await Promise.all(ids.map((id) => client.waitForJob(id, { timeoutMs: 600_000 })));
  const seconds = (performance.now() - start) / 1000;
  return { seconds, failed: views.filter((v) => v.state !== 'completed').map((v) => `${v.id}: ${v.state} ${v.failedReason ?? ''}`) };
}

async function mustRun(client: ProvisionerClient, names: string[], verb: 'create' | 'delete'): Promise<number> {
  const run = await runAll(client, names, verb);
  if (run.failed.length > 0) throw new Error(`${verb} failed: ${run.failed.slice(0, 5).join('; ')}`);
  return run.seconds;
}

async function requestsSinceCleared(sim: SimChild): Promise<SimRequest[]> {
  return (await sim.control<{ requests: SimRequest[] }>('GET', '/_sim/requests')).requests;
}

async function startWorkers(sim: SimChild, redis: Redis, prefix: string, count: number, concurrency: number, into: Child[]): Promise<Child[]> {
  const env = serviceEnv(sim, REDIS_URL, prefix, { JOBS_CONCURRENCY: String(concurrency), BUDGETS_POLL_MS: String(POLL_MS), PROXMOX_MAX_REQUESTS_PER_SECOND: String(BUDGET_PER_SECOND) });
  const before = (await listLiveWorkers(redis, prefix)).length;
  const started: Child[] = [];
  for (let i = 0; i < count; i += 1) started.push(startCli(['worker'], env));
  into.push(...started);
  while ((await listLiveWorkers(redis, prefix)).length < before + count) {
    if (started.some((w) => w.process.exitCode !== null)) throw new Error(`a worker exited: ${started.map((w) => w.output()).join('\n')}`);
    await sleep(100);
  }
  return started;
}

async function stopWorkers(redis: Redis, prefix: string, stopping: Child[], keep: number): Promise<void> {
  await Promise.all(stopping.map((w) => w.stop(5000)));
  while ((await listLiveWorkers(redis, prefix)).length > keep) await sleep(100);
}

const prefix = benchPrefix('provision');
const redis = newRedis();
// The simulator's daemon model on, as by default (SPEC 28): 3 pveproxy and 3 pvedaemon workers per node, the default costs scaled by timeScale.
const sim = await startSimChild({ vms: 3, timeScale: TIME_SCALE });
const workers: Child[] = [];
let client: ProvisionerClient | undefined;
try {
  const config = loadConfig({ env: {}, overrides: { redis: { url: REDIS_URL, prefix } } });
  client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });

  // 1. One worker alone: two warm-ups (a kind's spread needs two samples), then one create and one delete, each alone.
  const first = await startWorkers(sim, redis, prefix, 1, CONCURRENCY, workers);
  for (const warm of ['warm-0', 'warm-1']) {
    await mustRun(client, [warm], 'create');
    await mustRun(client, [warm], 'delete');
  }
  await sim.control('DELETE', '/_sim/requests');
  const singleCreate = await mustRun(client, ['solo-0'], 'create');
  const aloneRequests = await requestsSinceCleared(sim);
  const singleDelete = await mustRun(client, ['solo-0'], 'delete');
  const aloneSteps = stepCalls(aloneRequests, 1);
  const alonePolls = aloneRequests.length - aloneSteps;

  // 2. Two workers: VMS creates, then VMS deletes.
  const second = await startWorkers(sim, redis, prefix, WORKERS - 1, CONCURRENCY, workers);
  const names = Array.from({ length: VMS }, (_, i) => `prov-${i}`);
  await sim.control('DELETE', '/_sim/requests');
  const createSeconds = await mustRun(client, names, 'create');
  const createRequests = await requestsSinceCleared(sim);
  const deleteSeconds = await mustRun(client, names, 'delete');
  const state = await sim.control<{ vms: { config: { name?: string } }[] }>('GET', '/_sim/state');
  const left = state.vms.filter((vm) => vm.config.name?.startsWith('prov-')).length;
  if (left > 0) throw new Error(`${left} VMs are left after the deletes`);
  const waves = Math.ceil(VMS / (WORKERS * CONCURRENCY));
  const ideal = waves * (singleCreate + singleDelete);
  const total = createSeconds + deleteSeconds;
  const ratio = total / ideal;
  const steps = stepCalls(createRequests, VMS);
  const polls = createRequests.length - steps;

  // 3. AT_ONCE creates at once, on two fresh workers with room for them all.
  await stopWorkers(redis, prefix, [...first, ...second], 0);
  const perWorker = Math.ceil(AT_ONCE / WORKERS);
  await startWorkers(sim, redis, prefix, WORKERS, perWorker, workers);
  const warmNames = Array.from({ length: 2 * WORKERS }, (_, i) => `warm-b-${i}`);
  await mustRun(client, warmNames, 'create');
  await mustRun(client, warmNames, 'delete');
  const burstNames = Array.from({ length: AT_ONCE }, (_, i) => `burst-${i}`);
  await sim.control('DELETE', '/_sim/requests');
  const burstSeconds = await mustRun(client, burstNames, 'create');
  const burstRequests = await requestsSinceCleared(sim);
  await mustRun(client, burstNames, 'delete');
  const callsAtOnce = burstRequests.length / AT_ONCE;
  const peak = Math.max(peakPerSecond(aloneRequests), peakPerSecond(createRequests), peakPerSecond(burstRequests));

  printTable(`provisioning: timeScale ${TIME_SCALE}, pollMs ${POLL_MS}`, [
    { phase: 'one create alone (1 worker, after two warm-up creates)', seconds: Number(singleCreate.toFixed(3)) },
    { phase: 'one delete alone', seconds: Number(singleDelete.toFixed(3)) },
    { phase: `${VMS} creates (${WORKERS} workers x ${CONCURRENCY})`, seconds: Number(createSeconds.toFixed(3)) },
    { phase: `${VMS} deletes`, seconds: Number(deleteSeconds.toFixed(3)) },
    { phase: `ideal (${waves} waves)`, seconds: Number(ideal.toFixed(3)) },
    { phase: `${AT_ONCE} creates at once (${WORKERS} workers x ${perWorker})`, seconds: Number(burstSeconds.toFixed(3)) },
  ]);
  const alone = perCreate(aloneRequests, 1);
  const atOnce = perCreate(burstRequests, AT_ONCE);
  const many = perCreate(createRequests, VMS);
  const calls = [...new Set([...Object.keys(alone), ...Object.keys(many), ...Object.keys(atOnce)])];
  printTable('Proxmox calls per create, every endpoint', calls.map((call) => ({ call, alone: alone[call] ?? 0, [`${VMS} by 16`]: many[call] ?? 0, [`${AT_ONCE} at once`]: atOnce[call] ?? 0 })));
  printTable('Proxmox calls per create (SPEC 26)', [
    { figure: 'one create alone, learned: steps (SPEC 13)', value: aloneSteps, bar: '' },
    { figure: 'one create alone, learned: polls', value: alonePolls, bar: '' },
    { figure: 'one create alone, learned: together', value: aloneSteps + alonePolls, bar: `<= ${BAR_ALONE}` },
    { figure: `${VMS} creates by ${WORKERS * CONCURRENCY}: steps + polls`, value: Number(((steps + polls) / VMS).toFixed(2)), bar: '' },
    { figure: `${AT_ONCE} creates at once: every call`, value: Number(callsAtOnce.toFixed(2)), bar: `<= ${BAR_AT_ONCE}` },
    { figure: 'peak requests in one second', value: peak, bar: '' },
  ]);
  printTable('summary', [{ totalSeconds: Number(total.toFixed(3)), idealSeconds: Number(ideal.toFixed(3)), ratio: Number(ratio.toFixed(3)), bar: BAR, meets: ratio <= BAR ? 'yes' : 'NO' }]);
  printJson('provision', {
    vms: VMS,
    workers: WORKERS,
    concurrency: CONCURRENCY,
    timeScale: TIME_SCALE,
    pollMs: POLL_MS,
    singleCreateSeconds: singleCreate,
    singleDeleteSeconds: singleDelete,
    createSeconds,
    deleteSeconds,
    idealSeconds: ideal,
    ratio,
    bar: BAR,
    meetsBar: ratio <= BAR,
    callsPerCreateNote: 'one create alone, after two warm-up creates in the same worker process (its waits learned)',
    callsPerCreate: aloneSteps,
    pollsPerCreate: alonePolls,
    meetsAloneBar: aloneSteps + alonePolls <= BAR_ALONE,
    callsPerCreateAt100: callsAtOnce,
    atOnce: AT_ONCE,
    meetsAtOnceBar: callsAtOnce <= BAR_AT_ONCE,
    peakRequestsPerSecond: peak,
    budgetPerSecond: BUDGET_PER_SECOND,
    peakWithinBudget: peak <= BUDGET_PER_SECOND,
    callsPerCreateMany: (steps + polls) / VMS,
    callsByEndpointAlone: alone,
    callsByEndpointAt100: atOnce,
  });
} finally {
  await stopRun({ client, workers, sim });
  await deletePrefix(redis, prefix);
  redis.disconnect();
}
