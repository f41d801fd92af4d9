// Boot storm (issue 27, SPEC 28): AT_ONCE creates at once on 3 nodes,
// nothing learned, the real host's timings scaled down 100 times
// (timeScale 0.01, and the service's budgets likewise: pollMs 10,
// firstAddressSeconds 0.3, the request budget 2,000 a second), the daemon
// model on (3 pveproxy + 3 pvedaemon workers per node). Two worker
// processes with room for every create at once.
//   1. The cold wave: AT_ONCE creates on a fresh Redis prefix.
//   2. They are deleted (so the second wave meets the same cluster), then
//      the learned wave: AT_ONCE more, the boot time now learned.
// Per wave, per node: pvedaemon worker-seconds, the busiest moment, 596s;
// overall: agent "not running" answers and Proxmox calls per create,
// accept-to-address p50 and p95 against the floor (F16 and F21's step
// times as the simulator runs them), and the done-when's bars.
// The run goes twice: the new behaviour, then the old one
// (proxmox.daemonSlotsPerNode 0, budgets.firstAddressSeconds 0), whose
// bars are informative. Like the other benches it exits 0 whatever the
// bars say; --strict exits 1 when a bar of the new behaviour fails.
// By default each node's calls go to its own pveproxy (proxmox.nodes[i].apiUrl
// from the simulator's GET /_sim/nodes, the recommended deployment of a
// multi-node cluster) and each create names its node, round-robin (the
// issue's "100 creates at once on 3 nodes"; the service's placement piles a
// burst onto one node, audit 7.4). The daemon slots' worst cases are scaled
// with the time scale (proxmox.daemonSlotWorstCaseScale).
// --pools runs the new behaviour once more with SPEC 29's address pool and
// `phone-home` readiness (a web process takes the guests' calls): agent
// calls per create 0, Proxmox calls per create printed.
// Options: --at-once N, --time-scale X (default 0.01), --single-url (every
// call through proxmox.url, no apiUrl), --placed (the service's placement
// instead of round-robin), --new-only, --old-only (or --old), --strict, --quick,
// --trace DIR (each wave's request log and jobs to DIR/boot-storm-<mode>-<wave>.json).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { createProvisionerClient, type ProvisionerClient } from '../src/client.js';
import { loadConfig } from '../src/config/index.js';
import { listLiveWorkers } from '../src/queue/heartbeat.js';
import { keys } from '../src/redis-keys.js';
import { REDIS_URL, benchFlags, benchPrefix, deletePrefix, intFlag, newRedis, printJson, printTable, sleep } from './_common.js';
import { serviceEnv, startCli, startSimChild, stopRun, waitForOutput, type Child, type SimChild } from './_processes.js';
import { bars, type Bar, type SimTimings } from './_boot-storm-measure.js';
import { DAEMON_WORKERS, runWave, type WaveResult } from './_boot-storm-wave.js';

const flags = benchFlags('boot-storm', { 'at-once': { type: 'string' }, 'new-only': { type: 'boolean' }, 'old-only': { type: 'boolean' }, old: { type: 'boolean' }, strict: { type: 'boolean' }, trace: { type: 'string' }, spread: { type: 'boolean' }, placed: { type: 'boolean' }, 'single-url': { type: 'boolean' }, 'time-scale': { type: 'string' }, budget: { type: 'string' }, pools: { type: 'boolean' } });
const AT_ONCE = intFlag(flags, 'at-once', 100, 30);
const oldOnly = flags.values['old-only'] === true || flags.values.old === true;
const newOnly = flags.values['new-only'] === true;
if (oldOnly && newOnly) {
  process.stderr.write('bench/boot-storm: --new-only and --old-only exclude each other\n');
  process.exit(2);
}
const WORKERS = 2;
const NODES = ['pve1', 'pve2', 'pve3'];
const TIME_SCALE = timeScaleFlag();
/** Each create names its node, round-robin (the default); --placed: the service's placement chooses. */
const SPREAD = flags.values.placed !== true;
/** Each node's calls to its own pveproxy (the default); --single-url: all through proxmox.url, the entry node. */
const NODE_URLS = flags.values['single-url'] !== true;
/** budgets.pollMs 1000 and the request budget's 20 a second, on the simulator's clock. */
const POLL_MS = Math.max(1, Math.round(1000 * TIME_SCALE));
/** proxmox.maxRequestsPerSecond on the real host's clock (default 20, the service's), scaled with the time scale. */
const BUDGET_PER_SECOND = Math.round(intFlag(flags, 'budget', 20, 20) / TIME_SCALE);
/** budgets.firstAddressSeconds' default of 30, scaled. */
const FIRST_ADDRESS_SECONDS = 30 * TIME_SCALE;

/** --time-scale X (default 0.01): the simulator's timeScale, every scaled budget with it. */
function timeScaleFlag(): number {
  const given = flags.values['time-scale'];
  if (typeof given !== 'string') return 0.01;
  const value = Number(given);
  if (!(value > 0 && value <= 1)) {
    process.stderr.write(`--time-scale must be a number above 0 and at most 1, got ${given}\n`);
    process.exit(2);
  }
  return value;
}

type Mode = 'new' | 'old' | 'pools';

const NEW_ENV = { PROXMOX_DAEMON_SLOTS_PER_NODE: '2', BUDGETS_FIRST_ADDRESS_SECONDS: String(FIRST_ADDRESS_SECONDS) };

/** SPEC 29: both waves' addresses (2 x AT_ONCE, the first wave's cooling while the second takes) from one loopback pool. */
const POOL = { name: 'storm', bridge: 'vmbr0', cidr: '127.78.0.0/16', reuseCooldownSeconds: 600 };

const MODES: Record<Mode, { env: Record<string, string>; says: string }> = {
  new: {
    env: NEW_ENV,
    says: `proxmox.daemonSlotsPerNode 2, budgets.firstAddressSeconds ${FIRST_ADDRESS_SECONDS} (30 scaled), learned times shared in Redis`,
  },
  pools: {
    env: {
      ...NEW_ENV,
      PROXMOX_NETWORKS: JSON.stringify([POOL]),
      PROXMOX_IMAGES: JSON.stringify([{ name: 'debian', readiness: 'phone-home', templates: Object.fromEntries(NODES.map((node, i) => [node, 9001 + i])) }]),
    },
    says: `the new behaviour with an address pool (${POOL.cidr}) and readiness phone-home (SPEC 29): the guests call the web process, no agent call`,
  },
  old: {
    env: { PROXMOX_DAEMON_SLOTS_PER_NODE: '0', BUDGETS_FIRST_ADDRESS_SECONDS: '0' },
    says:
      'proxmox.daemonSlotsPerNode 0 (no slots), budgets.firstAddressSeconds 0 (the agent asked as soon as the start ends while nothing is learned). ' +
      'The learned times still live in Redis (the service has no switch for that store); with the same two worker processes in both waves, ' +
      'each had learned in the cold wave anyway, as the old per-process memory did',
  },
};

/** The simulator's keys, as its child process reads them: the floor's step times come from these. */
const SIM_ENV: Record<string, string> = {
  SIM_NODES: JSON.stringify(NODES),
  SIM_TIME_SCALE: String(TIME_SCALE),
  SIM_PROXY_WORKERS: '3',
  SIM_DAEMON_WORKERS: String(DAEMON_WORKERS),
};
type NodeEntry = { name: string; template: number; isoStorage: string; bridge: string; apiUrl?: string };
const PROXMOX_NODES: NodeEntry[] = NODES.map((name, i) => ({ name, template: 9001 + i, isoStorage: 'proxy-seeds', bridge: 'vmbr0' }));

/** A free port on 127.0.0.1, for a web process whose http.publicUrl must name it before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The web process the guests phone home to (SPEC 29), on http.publicUrl; its secret files in a directory of its own. */
async function startWeb(sim: SimChild, prefix: string, env: Record<string, string>, into: Child[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'pvep-bench-storm-'));
  writeFileSync(join(dir, 'fingerprint-key'), `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const web = startCli(['web'], serviceEnv(sim, REDIS_URL, prefix, {
    ...env,
    PROXMOX_NODES: JSON.stringify(PROXMOX_NODES),
    // Only the guests' /v1/ready/<token> is called, which takes no bearer token; nothing else listens here.
    HTTP_AUTH_DISABLED: 'true',
    // Its start line (`API at ...`) is info.
    LOG_LEVEL: 'info',
    HTTP_FINGERPRINT_KEY_FILE: join(dir, 'fingerprint-key'),
  }));
  into.push(web);
  await waitForOutput(web, /API at http:\/\/127\.0\.0\.1:\d+\/v1/, 120_000);
  return dir;
}

function simTimings(): SimTimings {
  const { sim } = loadConfig({ env: { ...process.env, ...SIM_ENV } });
  return { cloneSeconds: sim.cloneSeconds, taskSeconds: sim.taskSeconds, agentSeconds: sim.agentSeconds, timeScale: sim.timeScale };
}

/** proxmox.nodes, each with its own pveproxy's URL (apiUrl) unless --single-url. */
async function proxmoxNodes(sim: SimChild): Promise<NodeEntry[]> {
  if (!NODE_URLS) return PROXMOX_NODES;
  const { nodeUrls } = await sim.control<{ nodeUrls: Record<string, string> }>('GET', '/_sim/nodes');
  return PROXMOX_NODES.map((n) => {
    const apiUrl = nodeUrls[n.name];
    if (apiUrl === undefined) throw new Error(`the simulator has no URL for node ${n.name}`);
    return { ...n, apiUrl };
  });
}

async function startWorkers(sim: SimChild, redis: Redis, prefix: string, mode: Mode, into: Child[], extraEnv: Record<string, string>): Promise<void> {
  const env = serviceEnv(sim, REDIS_URL, prefix, {
    JOBS_CONCURRENCY: String(Math.ceil(AT_ONCE / WORKERS)),
    BUDGETS_POLL_MS: String(POLL_MS),
    PROXMOX_MAX_REQUESTS_PER_SECOND: String(BUDGET_PER_SECOND),
    PROXMOX_NODES: JSON.stringify(await proxmoxNodes(sim)),
    PROXMOX_DAEMON_SLOT_WORST_CASE_SCALE: String(TIME_SCALE),
    ...MODES[mode].env,
    ...extraEnv,
  });
  const started = Array.from({ length: WORKERS }, () => startCli(['worker'], env));
  into.push(...started);
  while ((await listLiveWorkers(redis, prefix)).length < WORKERS) {
    if (started.some((w) => w.process.exitCode !== null)) throw new Error(`a worker exited: ${started.map((w) => w.output()).join('\n')}`);
    await sleep(100);
  }
}

/** Waits until the simulator saw no request for a second (the workers' first health check and sweep), at most 30 s. */
async function quiet(sim: SimChild): Promise<void> {
  const count = async (): Promise<number> => (await sim.control<{ requests: unknown[] }>('GET', '/_sim/requests')).requests.length;
  let last = await count();
  for (let waited = 0; waited < 30_000; waited += 1000) {
    await sleep(1000);
    const now = await count();
    if (now === last) return;
    last = now;
  }
}

async function deleteAll(client: ProvisionerClient, names: string[]): Promise<void> {
  const ids = await Promise.all(names.map(async (name) => (await client.deleteVm({ name })).jobId));
  const views = await Promise.all(ids.map((id) => client.waitForJob(id, { timeoutMs: 600_000 })));
  const failed = views.filter((v) => v.state !== 'completed');
  if (failed.length > 0) throw new Error(`${failed.length} deletes failed: ${failed.slice(0, 3).map((v) => v.failedReason).join('; ')}`);
}

interface ModeResult {
  mode: Mode;
  cold: WaveResult;
  learned: WaveResult;
  /** The boot time the cold wave taught, wall ms (mean and spread as stored). */
  learnedBootMs: string | undefined;
  /** What the workers logged (LOG_LEVEL warn: warnings and errors only), e.g. the slots failing open when Redis is slow. */
  workerWarnings: string[];
}

/** The distinct messages of the workers' log lines (JSON, `msg`), or the raw lines. */
function warnings(workers: Child[]): string[] {
  const lines = workers.flatMap((w) => w.output().split('\n')).filter((line) => line.trim() !== '');
  const messages = lines.map((line) => {
    try {
      const { msg } = JSON.parse(line) as { msg?: unknown };
      return typeof msg === 'string' ? msg : line;
    } catch {
      return line;
    }
  });
  return [...new Set(messages)];
}

async function runMode(mode: Mode): Promise<ModeResult> {
  const prefix = benchPrefix(`boot-storm-${mode}`);
  const redis = newRedis();
  const sim = await startSimChild({ vms: 3, timeScale: TIME_SCALE, env: SIM_ENV });
  const workers: Child[] = [];
  const others: Child[] = [];
  let client: ProvisionerClient | undefined;
  let webDir: string | undefined;
  try {
    const port = mode === 'pools' ? await freePort() : 0;
    const webEnv: Record<string, string> = mode === 'pools' ? { HTTP_PORT: String(port), HTTP_PUBLIC_URL: `http://127.0.0.1:${port}` } : {};
    const config = loadConfig({ env: mode === 'pools' ? { ...MODES.pools.env, ...webEnv } : {}, overrides: { redis: { url: REDIS_URL, prefix }, proxmox: { nodes: PROXMOX_NODES } } });
    client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });
    if (mode === 'pools') webDir = await startWeb(sim, prefix, { ...MODES.pools.env, ...webEnv }, others);
    await startWorkers(sim, redis, prefix, mode, workers, webEnv);
    await quiet(sim);
    const input = { sim, client, workerPids: workers.map((w) => w.pid), spreadOver: SPREAD ? NODES : [], timings: simTimings(), entryNode: NODE_URLS ? undefined : (NODES[0] as string) };
    const coldNames = Array.from({ length: AT_ONCE }, (_, i) => `storm-cold-${i}`);
    const cold = await runWave({ ...input, names: coldNames });
    const learnedBootMs = (await redis.hgetall(keys.learnedTimes(prefix)))['address:default'];
    await deleteAll(client, coldNames);
    await quiet(sim);
    const learned = await runWave({ ...input, names: Array.from({ length: AT_ONCE }, (_, i) => `storm-learned-${i}`) });
    return { mode, cold, learned, learnedBootMs, workerWarnings: warnings(workers) };
  } finally {
    await Promise.all(others.map((o) => o.stop()));
    await stopRun({ client, workers, sim });
    if (webDir !== undefined) rmSync(webDir, { recursive: true, force: true });
    await deletePrefix(redis, prefix);
    redis.disconnect();
  }
}

const n3 = (v: number): number => Number(v.toFixed(3));

function printWave(mode: Mode, wave: 'cold' | 'learned', w: WaveResult): Bar[] {
  const placed = Object.entries(w.vmsByNode).sort().map(([node, n]) => `${node} ${n}`).join(', ');
  const title = `${mode} behaviour, ${wave} wave: ${w.creates} creates at once (placed: ${placed}), ${n3(w.seconds)} s, ${w.failed.length} failed, ${w.retriedJobs} retried`;
  printTable(`${title}\nper node (pvedaemon; wall times after timeScale ${TIME_SCALE})`, w.nodes.map((n) => ({
    node: n.node,
    'worker-s': n3(n.daemonWorkerSeconds),
    'worker-s real host': Number(n.daemonWorkerSecondsRealHost.toFixed(1)),
    'share of 3 workers': n3(n.daemonShare),
    'peak busy': n.peakBusy,
    'peak (counter)': n.peakInProgress,
    'peak at ms': n.peakAtMs ?? '-',
    'ms all 3 busy': n.msAllBusy,
    'longest wait ms': n3(n.longestWaitMs),
    '596s': n.answers596,
  })));
  printTable('overall', [
    { figure: 'agent calls per create', value: n3(w.agentCallsPerCreate) },
    { figure: 'agent "not running" answers per create', value: n3(w.figures.notRunningPerCreate) },
    { figure: 'Proxmox calls per create', value: n3(w.figures.callsPerCreate) },
    { figure: 'accept-to-address p50 (s)', value: n3(w.p50Seconds) },
    { figure: 'accept-to-address p95 (s)', value: n3(w.p95Seconds) },
    { figure: 'floor: clone + upload, resize, start tasks + agent (s)', value: n3(w.floorSeconds) },
    { figure: 'p95 / floor', value: n3(w.figures.p95OverFloor) },
    { figure: 'CPU s: simulator / workers', value: `${n3(w.cpu.simSeconds)} / ${n3(w.cpu.workerSeconds)}` },
    { figure: 'load average (1 min): before / after', value: `${w.cpu.loadBefore.toFixed(1)} / ${w.cpu.loadAfter.toFixed(1)}` },
  ]);
  printTable('Proxmox calls per create, by seam method', Object.entries(w.callsByRoute).map(([call, perCreate]) => ({ call, perCreate })));
  for (const moment of w.fullMoments) {
    printTable(`${moment.node}: all ${DAEMON_WORKERS} pvedaemon workers busy at +${moment.atMs} ms; protected calls for it that arrived just before`, Object.entries(moment.arrivedBefore).map(([call, count]) => ({ call, count })));
  }
  if (w.failed.length > 0) process.stdout.write(`failed: ${w.failed.slice(0, 5).join('; ')}\n`);
  const judged = bars(w.figures, wave === 'learned');
  printTable(`bars (issue 27${mode === 'new' ? '' : `; informative for the ${mode} behaviour`})`, judged.map((b) => ({ bar: b.name, value: n3(b.value), limit: b.limit, result: b.met ? 'pass' : 'FAIL' })));
  return judged;
}

function withoutTrace(w: WaveResult): Omit<WaveResult, 'trace'> {
  const { trace: _trace, ...figures } = w;
  return figures;
}

const traceDir = typeof flags.values.trace === 'string' ? flags.values.trace : undefined;
if (traceDir !== undefined) mkdirSync(traceDir, { recursive: true });

if (TIME_SCALE < 0.05) {
  process.stdout.write(`note: at timeScale ${TIME_SCALE} the floor is below the workers' own CPU per wave and the round trips are not scaled: these figures measure the service more than Proxmox; the run of record is at --time-scale 1, real-host timings, about 10 minutes (docs/benchmarks.md)\n`);
}
const modes: Mode[] = flags.values.pools === true ? ['pools'] : oldOnly ? ['old'] : newOnly ? ['new'] : ['new', 'old'];
const results: ModeResult[] = [];
const failedBars: string[] = [];
for (const mode of modes) {
  process.stdout.write(`\n== ${mode} behaviour: ${MODES[mode].says}\n`);
  const result = await runMode(mode);
  results.push(result);
  const said = result.workerWarnings;
  process.stdout.write(`worker warnings and errors: ${said.length === 0 ? 'none' : said.slice(0, 5).join(' | ')}\n`);
  process.stdout.write(`boot time the cold wave taught (address:default, "mean spread samples at" in ms): ${result.learnedBootMs ?? 'none'}\n\n`);
  for (const wave of ['cold', 'learned'] as const) {
    const judged = printWave(mode, wave, result[wave]);
    if (traceDir !== undefined) writeFileSync(join(traceDir, `boot-storm-${mode}-${wave}.json`), JSON.stringify(result[wave].trace));
    process.stdout.write('\n');
    if (mode === 'new') failedBars.push(...judged.filter((b) => !b.met).map((b) => `${wave}: ${b.name} ${n3(b.value)}`));
    // SPEC 29: with phone-home readiness the guest says it is ready; no create asks its agent.
    if (mode === 'pools' && result[wave].agentCallsPerCreate > 0) failedBars.push(`${wave}: agent calls per create with phone-home ${n3(result[wave].agentCallsPerCreate)}, the bar is 0`);
  }
}
if (results.length === 2) {
  const cells = (pick: (w: WaveResult) => number): Record<string, number> =>
    Object.fromEntries(results.flatMap((r) => (['cold', 'learned'] as const).map((wave) => [`${r.mode} ${wave}`, n3(pick(r[wave]))])));
  printTable('what the change bought', [
    { figure: 'answers of 596', ...cells((w) => w.figures.answers596) },
    { figure: 'most pvedaemon workers busy on a node', ...cells((w) => w.figures.peakBusyDaemon) },
    { figure: 'pvedaemon worker-s, all nodes (real host)', ...cells((w) => w.nodes.reduce((s, n) => s + n.daemonWorkerSecondsRealHost, 0)) },
    { figure: 'agent "not running" per create', ...cells((w) => w.figures.notRunningPerCreate) },
    { figure: 'Proxmox calls per create', ...cells((w) => w.figures.callsPerCreate) },
    { figure: 'accept-to-address p95 (s)', ...cells((w) => w.p95Seconds) },
    { figure: 'p95 / floor', ...cells((w) => w.figures.p95OverFloor) },
  ]);
}
process.stdout.write(failedBars.length === 0 ? 'new behaviour: every bar met\n' : `new behaviour: bars not met: ${failedBars.join('; ')}\n`);
if (flags.values.strict === true && failedBars.length > 0) process.exitCode = 1;
printJson('boot-storm', {
  atOnce: AT_ONCE,
  workers: WORKERS,
  nodes: NODES,
  timeScale: TIME_SCALE,
  spread: SPREAD,
  nodeUrls: NODE_URLS,
  pollMs: POLL_MS,
  firstAddressSeconds: FIRST_ADDRESS_SECONDS,
  budgetPerSecond: BUDGET_PER_SECOND,
  meetsBars: failedBars.length === 0,
  failedBars,
  runs: results.map((r) => ({
    mode: r.mode,
    says: MODES[r.mode].says,
    learnedBootMs: r.learnedBootMs,
    workerWarnings: r.workerWarnings,
    waves: { cold: withoutTrace(r.cold), learned: withoutTrace(r.learned) },
  })),
});
