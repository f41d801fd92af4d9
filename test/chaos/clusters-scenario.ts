// SPEC 22 and 32: the chaos scenario on two simulated clusters, east and
// west, one simulator each (in this process, cluster-sims.ts), under two
// real worker processes, one SIGKILLed every few seconds, and the
// simulators' 5xx answers and dropped connections. Names are driven
// through random creates and deletes naming no cluster, so placement
// spreads them. Mid-drive west goes away (its listeners closed) until the
// health has said so, the creates of names new then ran on east, a sweep
// ran, and at least `awayMs` passed; then it is back. While it is away no
// VM of a west name may appear on east. At the end, after a drain, a sweep
// and a drain: each name as desired on its own cluster and nowhere else
// (0 names with two VMs, 0 orphans), no name moved, and west's VMs of
// names asked for nothing but present since it went away still there, not
// deleted nor made again (cluster-invariants.ts).
import { Queue } from 'bullmq';
import { ownJobId } from '../../src/job-table/job-ids.js';
import { createProvisionerClient, type DesiredView, type JobView, type ProvisionerClient } from '../../src/client.js';
import { clustersOf } from '../../src/config/clusters.js';
import { loadConfig } from '../../src/config/index.js';
import type { Config } from '../../src/config/types.js';
import { clusterHealth, type ClusterHealth } from '../../src/queue/cluster-health.js';
import { createWorkerConnection } from '../../src/queue/connection.js';
import { readLastHealth } from '../../src/queue/health-store.js';
import { keyPrefixOf, type RedisConnection } from '../../src/queue/redis-target.js';
import { SYSTEM_QUEUE, VM_QUEUE } from '../../src/queue/queues.js';
import { keys } from '../../src/redis-keys.js';
import { startCli, type Child } from '../../bench/_processes.js';
import { deletePrefix } from '../support/redis.js';
import { seeded } from '../support/seeded.js';
import { clusterViolations, elsewhereViolations, keptViolations, keptVms, movedViolations, type ClusterDesired, type KeptVm } from './cluster-invariants.js';
import { clustersEnv, startChaosClusters, type ChaosCluster } from './cluster-sims.js';
import { foreignViolations, tallyJobs, type ForeignVm, type JobTally, type SimStateView } from './invariants.js';
import { CHAOS_SERVICE_ENV, FAULTS, SIM_TIME_SCALE, drained, persist, plantForeign, uidOf } from './scenario.js';
import { holdViolations } from './tenant-holds.js';

export interface ClusterChaosOptions {
  names: number;
  /** Names whose one create comes while west is away (after the health said so): placed on east (SPEC 32). */
  lateNames: number;
  /** How long the random operations go on. */
  driveMs: number;
  /** West goes away this long after the drive's start, or later, once it runs at least minKept VMs the run asked for (at most 60 s more). */
  awayAtMs: number;
  /** West's running VMs (of names present) the outage must find, so "nothing of it deleted" is checked on something; default 1. */
  minKept?: number;
  /** West stays away at least this long (wall ms), longer until the health saw it, the late creates ran and a sweep ended. */
  awayMs: number;
  /** A worker is killed every this many ms, give or take half. */
  killEveryMs: number;
  minKills: number;
  sharedRedisUrl: string;
  prefix: string;
  seed: number;
  log?: (line: string) => void;
}

export interface ClusterChaosReport {
  names: number;
  lateNames: number;
  operations: number;
  jobs: number;
  tally: JobTally;
  kills: number;
  injected5xx: number;
  dropped: number;
  /** How long west was away, and how long until a health result said so (undefined: never). */
  awaySeconds: number;
  awayNoticedAfterMs: number | undefined;
  /** Late names whose VM ran on east while west was away. */
  lateOnEast: number;
  /** West's VMs the run checks were kept (running, asked for nothing but present since it went away). */
  kept: number;
  sweepWhileAway: unknown;
  sweep: unknown;
  violations: string[];
  seconds: number;
}

const CLUSTERS = ['east', 'west'] as const;
/** The cluster taken away. */
const AWAY = 'west';
/** A health check every second: placement and the views learn of the cluster away within seconds. */
const HEALTH_EVERY_SECONDS = '1';
/** How long the run waits for a health result to say what it expects, and for the late creates to run. */
const HEALTH_WAIT_MS = 60_000;
const LATE_WAIT_MS = 120_000;
/** How often east is looked at while west is away. */
const AWAY_SAMPLE_MS = 500;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The cluster a record names: its `cluster`, else its spec's, else the first (SPEC 32). */
function clusterOfView(view: DesiredView | undefined, first: string): string {
  // The view's `cluster` comes with the several-clusters views (SPEC 32); the spec's is the create's.
  const shown = view !== undefined && 'cluster' in view && typeof view.cluster === 'string' ? view.cluster : undefined;
  return shown ?? view?.spec?.cluster ?? first;
}

async function healthSays(redis: ReturnType<typeof createWorkerConnection>, keyPrefix: string, config: Config, wanted: (clusters: ClusterHealth[]) => boolean): Promise<boolean> {
  const deadline = Date.now() + HEALTH_WAIT_MS;
  while (Date.now() < deadline) {
    const last = await readLastHealth(redis, keyPrefix).catch(() => undefined);
    if (last !== undefined && wanted(clusterHealth(last, clustersOf(config)))) return true;
    await sleep(200);
  }
  return false;
}

const stateOf = (clusters: ClusterHealth[], name: string): string | undefined => clusters.find((c) => c.name === name)?.state;

export async function runClusterChaos(options: ClusterChaosOptions): Promise<ClusterChaosReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const random = seeded(options.seed);
  const { prefix } = options;
  const target: RedisConnection = { url: options.sharedRedisUrl };
  const keyPrefix = keyPrefixOf(prefix, target);
  const redis = createWorkerConnection(target);
  const vmQueue = new Queue(VM_QUEUE, { connection: redis, prefix: keyPrefix });
  const systemQueue = new Queue(SYSTEM_QUEUE, { connection: redis, prefix: keyPrefix });
  for (const queue of [vmQueue, systemQueue]) queue.on('error', () => undefined);
  let clusters: ChaosCluster[] = [];
  const workers: (Child | undefined)[] = [undefined, undefined];
  let client: ProvisionerClient | undefined;
  const report: ClusterChaosReport = {
    names: options.names,
    lateNames: options.lateNames,
    operations: 0,
    jobs: 0,
    tally: { completed: 0, superseded: 0, failed: 0, problems: [] },
    kills: 0,
    injected5xx: 0,
    dropped: 0,
    awaySeconds: 0,
    awayNoticedAfterMs: undefined,
    lateOnEast: 0,
    kept: 0,
    sweepWhileAway: undefined,
    sweep: undefined,
    violations: [],
    seconds: 0,
  };
  const countRequests = async (): Promise<void> => {
    for (const cluster of clusters) {
      if (cluster.isAway()) continue;
      const { requests } = await cluster.control<{ requests: { status: number }[] }>('GET', '/_sim/requests');
      await cluster.control('DELETE', '/_sim/requests');
      report.injected5xx += requests.filter((r) => r.status >= 500).length;
      report.dropped += requests.filter((r) => r.status === 0).length;
    }
  };

  try {
    clusters = await startChaosClusters(CLUSTERS, SIM_TIME_SCALE, 3);
    const [east, west] = clusters;
    if (east === undefined || west === undefined) throw new Error('two clusters');
    const clusterKeys = clustersEnv(clusters);
    const env: Record<string, string> = {
      REDIS_URL: options.sharedRedisUrl,
      REDIS_PREFIX: prefix,
      REDIS_CLUSTER_NODES: '',
      REDIS_SENTINEL_NODES: '',
      REDIS_SENTINEL_NAME: '',
      LOG_LEVEL: 'warn',
      BUDGETS_FIRST_ADDRESS_SECONDS: String(30 * SIM_TIME_SCALE),
      ...CHAOS_SERVICE_ENV,
      HEALTH_EVERY_SECONDS,
      ...clusterKeys,
    };
    const startWorker = (i: number): void => {
      workers[i] = startCli(['worker'], env);
    };
    startWorker(0);
    startWorker(1);
    const config = loadConfig({ env: clusterKeys, overrides: { redis: { ...target, prefix } } });
    client = createProvisionerClient({ redisUrl: options.sharedRedisUrl, redis: config.redis, prefix, config });
    const producer = client;
    const names = Array.from({ length: options.names }, (_, i) => `chaos-${i}`);
    const lateNames = Array.from({ length: options.lateNames }, (_, i) => `chaos-late-${i}`);
    const foreign = new Map<string, ForeignVm[]>();
    for (const cluster of clusters) foreign.set(cluster.name, await plantForeign(cluster, [...names, ...lateNames], config.proxmox.vmidRange));
    // Placement reads the last health: both clusters in it first.
    if (!(await healthSays(redis, keyPrefix, config, (h) => h.every((c) => c.state === 'up')))) throw new Error(`no health result said both clusters up within ${HEALTH_WAIT_MS} ms`);
    for (const cluster of clusters) await cluster.control('POST', '/_sim/faults', FAULTS);

    const jobIds = new Set<string>();
    const lastIntent = new Map<string, 'present' | 'absent'>();
    /** Each name's cluster as first recorded. */
    const firstCluster = new Map<string, string>();
    /** Set when west's VMs are read before it goes away: deletes accepted from then on. */
    let awaySnapshotAt: number | undefined;
    const deletedSinceAway = new Set<string>();
    /** West's names the outage found running: the drive asks nothing more of them, so each must be there, the same VM, once west is back. */
    const untouched = new Set<string>();
    const accepted = async (name: string, verb: 'create' | 'delete', jobId: string): Promise<void> => {
      jobIds.add(jobId);
      lastIntent.set(name, verb === 'create' ? 'present' : 'absent');
      if (verb === 'delete' && awaySnapshotAt !== undefined) deletedSinceAway.add(name);
      report.operations += 1;
      if (verb === 'create' && !firstCluster.has(name)) firstCluster.set(name, clusterOfView(await persist(() => producer.getVm(name), () => undefined), east.name));
    };
    const operate = async (name: string, verb: 'create' | 'delete'): Promise<void> => {
      const result = await persist(() => (verb === 'create' ? producer.createVm({ name, uid: uidOf(name), waitForAddress: true }) : producer.deleteVm({ name })), () => undefined);
      await accepted(name, verb, result.jobId);
    };

    // The drive: every name runs its own random sequence, all at once.
    const plans = names.map((name) => {
      const steps = 1 + Math.floor(random() * 4);
      const ops: { verb: 'create' | 'delete'; afterMs: number }[] = [];
      for (let s = 0; s < steps; s += 1) ops.push({ verb: s === 0 || random() < 0.5 ? 'create' : 'delete', afterMs: Math.floor(random() * (options.driveMs / steps)) });
      return { name, ops };
    });
    const drive = Promise.all(
      plans.map(async ({ name, ops }) => {
        for (const op of ops) {
          await sleep(op.afterMs);
          if (untouched.has(name)) return;
          await operate(name, op.verb);
        }
      }),
    );

    // The outage, beside the drive.
    let kept: KeptVm[] = [];
    const away = (async () => {
      await sleep(options.awayAtMs);
      const minKept = options.minKept ?? 1;
      const waitUntil = Date.now() + 60_000;
      const runningOnWest = async (): Promise<KeptVm[]> => {
        const intentNow = new Map(lastIntent);
        return keptVms(await west.state(), (name) => intentNow.get(name) === 'present');
      };
      while ((await runningOnWest()).length < minKept && Date.now() < waitUntil) await sleep(250);
      awaySnapshotAt = Date.now();
      const intentAtAway = new Map(lastIntent);
      kept = keptVms(await west.state(), (name) => intentAtAway.get(name) === 'present');
      for (const vm of kept) untouched.add(vm.name);
      const awayAt = Date.now();
      await west.running.offline();
      log(`${AWAY} away (${kept.length} of its VMs to keep)`);
      // West's names as recorded now; late names are east's by then.
      const westNames = new Map<string, string>();
      for (const name of names) if (firstCluster.get(name) === AWAY) westNames.set(name, AWAY);
      let sampling = true;
      const seen = new Set<string>();
      const sampler = (async () => {
        while (sampling) {
          const state = await east.state().catch(() => undefined);
          for (const line of state === undefined ? [] : elsewhereViolations(east.name, state, westNames)) seen.add(`while ${AWAY} was away: ${line}`);
          await sleep(AWAY_SAMPLE_MS);
        }
      })();
      try {
        if (await healthSays(redis, keyPrefix, config, (h) => stateOf(h, AWAY) === 'away' && stateOf(h, east.name) === 'up')) report.awayNoticedAfterMs = Date.now() - awayAt;
        else report.violations.push(`no health result said ${AWAY} away within ${HEALTH_WAIT_MS} ms`);
        log(`the health said ${AWAY} away after ${((Date.now() - awayAt) / 1000).toFixed(1)} s; ${lateNames.length} new names now`);
        // Names new now: placed on east, and run there (SPEC 32: creates go to the others).
        for (const name of lateNames) {
          await operate(name, 'create');
          const placed = firstCluster.get(name);
          if (placed !== east.name) report.violations.push(`${name}: created while ${AWAY} was away, placed on ${placed ?? '(unknown)'}`);
        }
        const deadline = Date.now() + LATE_WAIT_MS;
        for (;;) {
          const running = new Set((await east.state()).vms.filter((vm) => vm.status === 'running' && !vm.cloning).map((vm) => vm.config.name));
          report.lateOnEast = lateNames.filter((name) => running.has(name)).length;
          if (report.lateOnEast === lateNames.length || Date.now() > deadline) break;
          await sleep(250);
        }
        log(`${report.lateOnEast} of ${lateNames.length} late names running on east after ${((Date.now() - awayAt) / 1000).toFixed(1)} s; a sweep now`);
        if (report.lateOnEast < lateNames.length) report.violations.push(`${lateNames.length - report.lateOnEast} of ${lateNames.length} creates made while ${AWAY} was away did not run on east within ${LATE_WAIT_MS} ms`);
        // A sweep now judges east and leaves west's names alone.
        const sweep = await systemQueue.add('reconcile', { dryRun: false }, { jobId: ownJobId('reconcile') });
        const view = await producer.waitForJob(sweep.id ?? '', { timeoutMs: 120_000 });
        report.sweepWhileAway = view.state === 'completed' ? view.result : { state: view.state, failedReason: view.failedReason };
        if (view.state !== 'completed') report.violations.push(`the sweep while ${AWAY} was away ended ${view.state}: ${view.failedReason ?? ''}`);
        await sleep(Math.max(0, awayAt + options.awayMs - Date.now()));
      } finally {
        sampling = false;
        await sampler;
        report.violations.push(...seen);
        await west.running.online();
        report.awaySeconds = (Date.now() - awayAt) / 1000;
        log(`${AWAY} back after ${report.awaySeconds.toFixed(1)} s`);
      }
    })();

    // The kills, until the drive and the outage are over.
    let busy = true;
    void Promise.all([drive, away])
      .finally(() => (busy = false))
      .catch(() => undefined);
    while (busy || report.kills < options.minKills) {
      await sleep(options.killEveryMs * (0.5 + random()));
      if (!busy && report.kills >= options.minKills) break;
      const victim = random() < 0.5 ? 0 : 1;
      await workers[victim]?.kill();
      report.kills += 1;
      log(`killed worker ${victim} (${report.kills} kills)`);
      startWorker(victim);
      await countRequests();
    }
    await drive;
    await away;

    // Calm: faults off, both workers up, drain, one sweep, drain.
    for (const cluster of clusters) await cluster.control('POST', '/_sim/faults', {});
    await countRequests();
    log(`drive done: ${report.operations} operations, ${jobIds.size} jobs; draining`);
    await drained([vmQueue], 2000, 300_000, log);
    const sweepJob = await systemQueue.add('reconcile', { dryRun: false }, { jobId: ownJobId('reconcile') });
    const sweepView = await producer.waitForJob(sweepJob.id ?? '', { timeoutMs: 120_000 });
    report.sweep = sweepView.state === 'completed' ? sweepView.result : { state: sweepView.state, failedReason: sweepView.failedReason };
    if (sweepView.state !== 'completed') report.violations.push(`the reconcile sweep ended ${sweepView.state}: ${sweepView.failedReason ?? ''}`);
    await drained([vmQueue], 2000, 300_000, log);
    await countRequests();

    // The end state.
    const everyJob = new Set(jobIds);
    for (const job of await vmQueue.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed'])) if (job.id !== undefined) everyJob.add(job.id);
    const views = new Map<string, JobView | undefined>();
    for (const id of everyJob) views.set(id, await producer.getJob(id));
    report.jobs = everyJob.size;
    report.tally = tallyJobs(views);
    const desired: ClusterDesired[] = [];
    const lastCluster = new Map<string, string>();
    for (const name of [...names, ...lateNames]) {
      if (!lastIntent.has(name)) continue;
      const record = await producer.getVm(name);
      if (record === undefined) {
        report.violations.push(`${name}: no desired state recorded`);
        continue;
      }
      if (record.state !== lastIntent.get(name)) report.violations.push(`${name}: registry says ${record.state}, the last request was ${lastIntent.get(name) ?? '(none)'}`);
      const cluster = clusterOfView(record, east.name);
      lastCluster.set(name, cluster);
      desired.push({ name, state: record.state, cluster, ...(record.uid !== undefined ? { uid: record.uid } : {}) });
    }
    const states = new Map<string, SimStateView>();
    for (const cluster of clusters) states.set(cluster.name, await cluster.state());
    const westState = states.get(AWAY) ?? { vms: [], nodes: [] };
    const checkedKept = kept.filter((vm) => !deletedSinceAway.has(vm.name));
    report.kept = checkedKept.length;
    report.violations.push(
      ...clusterViolations(states, desired),
      ...clusters.flatMap((cluster) => foreignViolations(states.get(cluster.name) ?? { vms: [], nodes: [] }, foreign.get(cluster.name) ?? []).map((line) => `${cluster.name}: ${line}`)),
      ...movedViolations(firstCluster, lastCluster),
      ...keptViolations(AWAY, westState, checkedKept),
      ...report.tally.problems,
    );
    // SPEC 34: every create took a hold (the default tenant's); each is a VM on some cluster or a present name, and the sums add up.
    const everyVm: SimStateView = { vms: [...states.values()].flatMap((s) => s.vms), nodes: [] };
    report.violations.push(...holdViolations(everyVm, await redis.hgetall(keys.tenantHolds(keyPrefix)), await redis.hgetall(keys.tenantUse(keyPrefix)), desired));
    report.seconds = (Date.now() - started) / 1000;
    // The story of every name a violation mentions, from its jobs' logs.
    const named = new Set(report.violations.flatMap((v) => /chaos-(late-)?\d+/.exec(v)?.[0] ?? []));
    for (const [id, view] of views) {
      const name = (view?.data as { name?: string } | undefined)?.name;
      if (view === undefined || name === undefined || !named.has(name)) continue;
      log(`job ${id} ${view.job} ${JSON.stringify(view.data).slice(0, 200)} ${view.state} ${view.failedReason ?? ''} result ${JSON.stringify(view.result)}\n    ${view.logs.join('\n    ')}`);
    }
    return report;
  } finally {
    const outputs = workers.map((w) => w?.output() ?? '').join('\n');
    await Promise.all(workers.map((w) => (w === undefined ? Promise.resolve() : w.kill())));
    if (report.violations.length > 0) log(`worker output (last 3000 chars):\n${outputs.slice(-3000)}`);
    await client?.close();
    await vmQueue.close().catch(() => undefined);
    await systemQueue.close().catch(() => undefined);
    await Promise.all(clusters.map((cluster) => cluster.running.close()));
    await deletePrefix(redis, prefix).catch(() => undefined);
    redis.disconnect();
  }
}

export function clusterSummary(report: ClusterChaosReport, seed: number): string {
  const { tally } = report;
  return (
    `seed ${seed}: ${report.names} + ${report.lateNames} late names, ${report.operations} operations, ${report.jobs} jobs ` +
    `(${tally.completed} completed, ${tally.superseded} superseded, ${tally.failed} failed), ${report.kills} kills, ` +
    `${report.injected5xx} 5xx answers, ${report.dropped} dropped connections, ${AWAY} away ${report.awaySeconds.toFixed(1)} s ` +
    `(noticed after ${report.awayNoticedAfterMs === undefined ? 'never' : `${(report.awayNoticedAfterMs / 1000).toFixed(1)} s`}), ` +
    `${report.lateOnEast} late creates on east while it was away, ${report.kept} of its VMs kept, ${report.seconds.toFixed(1)} s`
  );
}
