// The chaos scenario of SPEC 22: names driven through random create and
// delete sequences via the producer library, while the simulator injects
// 5xx answers, dropped connections (before and after the effect) and slow
// tasks, one of two real worker processes is killed with SIGKILL every
// few seconds and started again, and (in one variant) Redis is restarted
// mid-run. Then the faults stop, the queues drain, one reconcile sweep
// runs and the queues drain again, and the end state is read. Half the
// names carry leases of random length, some renewed (SPEC 31): no VM of an
// expired lease outlives it by more than the scaled bound, no renewed VM
// ends early (leases.ts, invariants.ts leaseViolations). With a warm pool
// (SPEC 30) every create claims an idle member when there is one
// (warm-pool.ts judges the claims and the pool at the end).
import { Queue } from 'bullmq';
import { ownJobId } from '../../src/job-table/job-ids.js';
import { createProvisionerClient, type JobView, type ProvisionerClient } from '../../src/client.js';
import { loadConfig } from '../../src/config/index.js';
import { createWorkerConnection } from '../../src/queue/connection.js';
import { keyPrefixOf, type RedisConnection } from '../../src/queue/redis-target.js';
import { LEASE_QUEUE, SYSTEM_QUEUE, VM_QUEUE } from '../../src/queue/queues.js';
import { chaosLeases } from './leases.js';
import { CHAOS_NETWORK, chaosAddresses } from './addresses.js';
import { holdViolations } from './tenant-holds.js';
import { keys } from '../../src/redis-keys.js';
import { chaosKeys, chaosWarmPool, warmPoolEnv, type GuestFiles } from './warm-pool.js';
import { serviceEnv, startCli, startSimChild, type Child, type SimChild } from '../../bench/_processes.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { foreignViolations, stateViolations, tallyJobs, type Desired, type ForeignVm, type JobTally, type SimStateView } from './invariants.js';
import { startPrivateRedis, type PrivateRedis } from './private-redis.js';
import { deletePrefix } from '../support/redis.js';
import { startRedisFleet, type FleetKind, type RedisFleet } from '../support/redis-fleet.js';
import { seeded } from '../support/seeded.js';

export interface ChaosOptions {
  names: number;
  /** How long the random operations go on. */
  driveMs: number;
  /** A worker is killed every this many ms, give or take half. */
  killEveryMs: number;
  /**
   * At least this many kills, the last ones while the jobs drain if the
   * drive ended first: on a loaded machine a kill and its restart take
   * seconds, and a 12 s drive saw one kill only.
   */
  minKills: number;
  /** Restart a private Redis (AOF on) this many times during the drive; 0 uses the shared Redis. */
  redisRestarts: number;
  sharedRedisUrl: string;
  /** Run on a Redis Cluster or a Sentinel set of the test's own, whose master is SIGKILLed mid-run (SPEC 25). */
  fleet?: FleetKind;
  prefix: string;
  /**
   * Every create takes an address from a pool of 64 at the door (SPEC 29),
   * freed addresses cooling this long; each name then runs up to 9
   * operations, so a run of 100 names makes about 500 creates and deletes.
   */
  addresses?: { cooldownMs: number };
  /**
   * A warm pool (SPEC 30) of the drive's creates' shape: filled to minIdle
   * before the drive, every create carrying sshKeys of its name, so it
   * claims an idle member when there is one.
   */
  pool?: { minIdle: number; maxIdle: number };
  /** Random seed: the same seed gives the same operations. */
  seed: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  names: number;
  operations: number;
  jobs: number;
  tally: JobTally;
  kills: number;
  workerStarts: number;
  redisRestarts: number;
  /** Masters SIGKILLed (a replica took over each). */
  failovers: number;
  injected5xx: number;
  dropped: number;
  slowTaskPhases: number;
  producerRetries: number;
  /** Creates the door refused with the address pool full (SPEC 29); 0 without addresses. */
  poolRefusals: number;
  /** Creates whose VM came from the warm pool and whose name is present at the end; 0 without a pool. */
  poolClaims: number;
  sweep: unknown;
  /** Seeds on a node where their VM is not (VM made again elsewhere): reported, not a violation. */
  violations: string[];
  seconds: number;
}


const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The simulator runs Proxmox's times this much faster; the service's pvedaemon slots scale their holds to match. */
export const SIM_TIME_SCALE = 0.01;

/** The name lock's TTL (and BullMQ's stalled check) in this suite: 2 s for the default 30 s, the suite's time scale for the service's own times. */
export const LOCK_TTL_MS = 2000;
/** How often the simulator's VMs are sampled for the lease invariant. */
const LEASE_SAMPLE_MS = 1000;
/** A killed worker's process start (tsx compiling, then its connections): seconds on a loaded machine, and no service time. */
const WORKER_START_MS = 5000;
/**
 * SPEC 31: no VM of an expired lease alive later than 60 s after its
 * expiry. The 60 s hold a real worker's 30 s lock TTL; here the service's
 * times run 15 times faster (the lock TTL 2 s), so 4 s, plus what is not
 * service time and is not scaled: a worker process's start after a kill,
 * and the sampler's period.
 */
const LEASE_END_BOUND_MS = (60_000 * LOCK_TTL_MS) / 30_000 + WORKER_START_MS + LEASE_SAMPLE_MS;

export const FAULTS = {
  errors: [
    { path: '/api2/json/', rate: 0.04, status: 500 },
    { path: '/api2/json/', rate: 0.02, status: 503 },
    { path: '/api2/json/', rate: 0.01, status: 596 },
  ],
  drops: [
    { path: '/api2/json/', rate: 0.02 },
    { path: '/api2/json/nodes/', rate: 0.02, afterEffect: true, methods: ['POST', 'PUT', 'DELETE'] },
  ],
};

/** The service's settings in every chaos run: its times at the suite's scale, sweeps and health checks only when the run asks. */
export const CHAOS_SERVICE_ENV: Record<string, string> = {
  JOBS_CONCURRENCY: '8',
  JOBS_BACKOFF_MS: '200',
  JOBS_KEEP_COMPLETED_COUNT: '1000000',
  JOBS_KEEP_FAILED_COUNT: '1000000',
  JOBS_SHUTDOWN_GRACE_SECONDS: '2',
  BUDGETS_POLL_MS: '10',
  BUDGETS_LOCK_TTL_MS: String(LOCK_TTL_MS),
  RECONCILER_EVERY_SECONDS: '3600',
  RECONCILER_GRACE_SECONDS: '0',
  HEALTH_EVERY_SECONDS: '3600',
  // The shared request budget stays on (SPEC 26), high enough not to stretch the drive.
  PROXMOX_MAX_REQUESTS_PER_SECOND: '200',
  // The pvedaemon slots stay on at their default (SPEC 28): the faults'
  // drops and 596s and the killed workers hold slots for Proxmox's
  // worst cases, scaled like the simulator's times.
  PROXMOX_DAEMON_SLOT_WORST_CASE_SCALE: String(SIM_TIME_SCALE),
};

/** Retries a producer call while Redis is away (a restart); a refusal of the input would be a bug here. */
export async function persist<T>(call: () => Promise<T>, onRetry: () => void): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (Date.now() > deadline || (err instanceof Error && (err.name === 'ValidationError' || err.name === 'ConflictError' || err.name === 'PoolExhaustedError'))) throw err;
      onRetry();
      await sleep(200);
    }
  }
}

export async function drained(queues: Queue[], quietMs: number, timeoutMs: number, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietSince: number | undefined;
  let nextLog = Date.now() + 5000;
  for (;;) {
    let pending = 0;
    const shown: string[] = [];
    for (const queue of queues) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
      pending += Object.values(counts).reduce((a, b) => a + b, 0);
      shown.push(`${queue.name} ${JSON.stringify(counts)}`);
    }
    if (Date.now() > nextLog) {
      log(`draining: ${shown.join(', ')}`);
      nextLog = Date.now() + 5000;
    }
    if (pending === 0) {
      quietSince ??= Date.now();
      if (Date.now() - quietSince >= quietMs) return;
    } else quietSince = undefined;
    if (Date.now() > deadline) throw new Error(`queues did not drain within ${timeoutMs} ms (${pending} pending)`);
    await sleep(200);
  }
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const random = seeded(options.seed);
  const privateRedis: PrivateRedis | undefined = options.redisRestarts > 0 ? await startPrivateRedis() : undefined;
  const fleet: RedisFleet | undefined = options.fleet === undefined ? undefined : await startRedisFleet(options.fleet);
  const redisUrl = privateRedis?.url ?? options.sharedRedisUrl;
  const target: RedisConnection = fleet?.connection ?? { url: redisUrl };
  const { prefix } = options;
  const keyPrefix = keyPrefixOf(prefix, target);
  let sim: SimChild | undefined;
  const workers: (Child | undefined)[] = [undefined, undefined];
  let client: ProvisionerClient | undefined;
  // The lease sampler's loop runs while this is true; the finally ends it whatever happened.
  let sampling = false;
  // A Redis restart or failover is part of the scenario: its errors are expected.
  const redis = createWorkerConnection(target);
  const vmQueue = new Queue(VM_QUEUE, { connection: redis, prefix: keyPrefix });
  const systemQueue = new Queue(SYSTEM_QUEUE, { connection: redis, prefix: keyPrefix });
  const leaseQueue = new Queue(LEASE_QUEUE, { connection: redis, prefix: keyPrefix });
  for (const queue of [vmQueue, systemQueue, leaseQueue]) queue.on('error', () => undefined);
  const report: ChaosReport = {
    names: options.names,
    operations: 0,
    jobs: 0,
    tally: { completed: 0, superseded: 0, failed: 0, problems: [] },
    kills: 0,
    workerStarts: 0,
    redisRestarts: 0,
    failovers: 0,
    injected5xx: 0,
    dropped: 0,
    slowTaskPhases: 0,
    producerRetries: 0,
    poolRefusals: 0,
    poolClaims: 0,
    sweep: undefined,
    violations: [],
    seconds: 0,
  };
  const countRequests = async (): Promise<void> => {
    if (sim === undefined) return;
    const { requests } = await sim.control<{ requests: { status: number }[] }>('GET', '/_sim/requests');
    await sim.control('DELETE', '/_sim/requests');
    report.injected5xx += requests.filter((r) => r.status >= 500).length;
    report.dropped += requests.filter((r) => r.status === 0).length;
  };

  try {
    sim = await startSimChild({ vms: 3, timeScale: SIM_TIME_SCALE });
    const env = serviceEnv(sim, redisUrl, prefix, {
      // Only this run's own Redis, whatever the suite's environment names.
      REDIS_CLUSTER_NODES: '',
      REDIS_SENTINEL_NODES: '',
      REDIS_SENTINEL_NAME: '',
      ...fleet?.env,
      ...CHAOS_SERVICE_ENV,
      ...(options.addresses === undefined ? {} : addressEnv(options.addresses.cooldownMs)),
      ...(options.pool === undefined ? {} : warmPoolEnv(options.pool)),
    });
    const startWorker = (i: number): void => {
      workers[i] = startCli(['worker'], env);
      report.workerStarts += 1;
    };
    startWorker(0);
    startWorker(1);
    const config = loadConfig({
      env: { ...(options.addresses === undefined ? {} : addressEnv(options.addresses.cooldownMs)), ...(options.pool === undefined ? {} : warmPoolEnv(options.pool)) },
      overrides: { redis: { ...target, prefix } },
    });
    client = createProvisionerClient({ redisUrl, redis: config.redis, prefix, config });
    const producer = client;
    const names = Array.from({ length: options.names }, (_, i) => `chaos-${i}`);
    const foreign = await plantForeign(sim, names, config.proxmox.vmidRange);
    const leases = chaosLeases({ redis, prefix: keyPrefix, random, longestMs: options.driveMs / 2 });
    const addresses = options.addresses === undefined ? undefined : chaosAddresses(redis, keyPrefix, options.addresses.cooldownMs);
    const warm = options.pool === undefined ? undefined : chaosWarmPool(redis, keyPrefix, options.pool, config.proxmox.tag);
    // The claims start with the drive: the pool full first.
    if (warm !== undefined && !(await warm.settle(120_000))) throw new Error(`the warm pool did not fill to ${options.pool?.minIdle} idle before the drive`);
    const simSim = sim;
    sampling = true;
    const sampler = (async () => {
      while (sampling) {
        leases.sample(await simSim.control<SimStateView>('GET', '/_sim/state').catch(() => ({ vms: [], nodes: [] })));
        // Redis away (a restart, a failover): the next sample sees what this one missed.
        await addresses?.sample(names).catch(() => undefined);
        await sleep(addresses === undefined ? LEASE_SAMPLE_MS : ADDRESS_SAMPLE_MS);
      }
    })();
    await sim.control('POST', '/_sim/faults', FAULTS);

    // The drive: every name runs its own random sequence, all at once.
    const jobIds = new Set<string>();
    const lastIntent = new Map<string, 'present' | 'absent'>();
    const plans = names.map((name) => {
      const steps = 1 + Math.floor(random() * (addresses === undefined ? 4 : 9));
      const ops: { verb: 'create' | 'delete'; afterMs: number }[] = [];
      for (let s = 0; s < steps; s += 1) ops.push({ verb: s === 0 || random() < 0.5 ? 'create' : 'delete', afterMs: Math.floor(random() * (options.driveMs / steps)) });
      return { name, ops };
    });
    const driveStarted = Date.now();
    const drive = Promise.all(
      plans.map(async ({ name, ops }) => {
        for (const op of ops) {
          await sleep(op.afterMs);
          const result = await persist(
            () =>
              op.verb === 'create'
                ? producer.createVm({ name, uid: uidOf(name), waitForAddress: true, ttlSeconds: leases.ttlFor(name), ...(warm === undefined ? {} : { sshKeys: chaosKeys(name) }) })
                : producer.deleteVm({ name }),
            () => (report.producerRetries += 1),
          ).catch((err: unknown) => {
            // A full pool refuses the create at the door, writing nothing (SPEC 29).
            if (err instanceof Error && err.name === 'PoolExhaustedError') return undefined;
            throw err;
          });
          if (result === undefined) {
            report.poolRefusals += 1;
            report.operations += 1;
            continue;
          }
          jobIds.add(result.jobId);
          lastIntent.set(name, op.verb === 'create' ? 'present' : 'absent');
          leases.intent(name);
          if (op.verb === 'create' && leases.leased(name)) await persist(() => leases.created(name, producer, sleep), () => (report.producerRetries += 1));
          report.operations += 1;
        }
      }),
    );

    // The chaos: kills, slow-task phases, Redis restarts, until the drive ends.
    let driving = true;
    void drive.finally(() => (driving = false)).catch(() => undefined);
    // The failover comes in the middle of the drive, with jobs running.
    let failoverAt = fleet === undefined ? Infinity : driveStarted + options.driveMs / 2;
    let failing: Promise<void> | undefined;
    const restartAt = Array.from({ length: options.redisRestarts }, (_, i) => started + ((i + 1) * options.driveMs) / (options.redisRestarts + 1));
    const startFailover = (): void => {
      if (fleet === undefined || failoverAt === Infinity) return;
      failoverAt = Infinity;
      // Not awaited here: the worker kills go on while the replica takes over.
      failing = fleet.failover(prefix).then((failover) => {
        report.failovers += 1;
        log(`SIGKILLed the master on ${failover.killedPort}; ${failover.promotedPort} took over after ${failover.promotedAfterMs} ms`);
      });
    };
    while (driving || report.kills < options.minKills) {
      await sleep(options.killEveryMs * (0.5 + random()));
      if (!driving && report.kills >= options.minKills) break;
      const victim = random() < 0.5 ? 0 : 1;
      await workers[victim]?.kill();
      report.kills += 1;
      log(`killed worker ${victim} (${report.kills} kills)`);
      startWorker(victim);
      const slow = random() < 0.4;
      await sim.control('POST', '/_sim/faults', slow ? { ...FAULTS, slowTasks: 5 } : FAULTS);
      if (slow) report.slowTaskPhases += 1;
      await countRequests();
      if (privateRedis !== undefined && restartAt.length > 0 && Date.now() >= (restartAt[0] ?? Infinity)) {
        restartAt.shift();
        await privateRedis.restart(500);
        report.redisRestarts = privateRedis.restarts;
        log(`restarted Redis (${report.redisRestarts})`);
      }
      if (Date.now() >= failoverAt) startFailover();
    }
    await drive;
    // A drive that ended before its middle came round still gets its failover, while its jobs drain.
    startFailover();
    await failing;
    while (privateRedis !== undefined && restartAt.length > 0) {
      restartAt.shift();
      await privateRedis.restart(500);
      report.redisRestarts = privateRedis.restarts;
    }

    // Calm: faults off, both workers up, drain, one sweep, drain.
    await sim.control('POST', '/_sim/faults', {});
    await countRequests();
    log(`drive done: ${report.operations} operations, ${jobIds.size} jobs; draining`);
    await drained([vmQueue, leaseQueue], 2000, 300_000, log);
    const sweepJob = await systemQueue.add('reconcile', { dryRun: false }, { jobId: ownJobId('reconcile') });
    const sweepView = await producer.waitForJob(sweepJob.id ?? '', { timeoutMs: 120_000 });
    report.sweep = sweepView.state === 'completed' ? sweepView.result : { state: sweepView.state, failedReason: sweepView.failedReason };
    // The system queue always holds the schedulers' next (delayed) jobs: only the vm queue drains.
    await drained([vmQueue, leaseQueue], 2000, 300_000, log);
    // The refill after the last claims (or its 30 s schedule, a kill having cut one short) brings the pool back to minIdle or above.
    if (warm !== undefined && !(await warm.settle(90_000))) log('the warm pool did not settle between minIdle and maxIdle within 90 s');
    await drained([vmQueue, leaseQueue], 2000, 300_000, log);
    await countRequests();
    sampling = false;
    await sampler;
    // A lease that ran out with no request after it deleted its name (SPEC 31).
    for (const name of leases.expiredNames(Date.now())) lastIntent.set(name, 'absent');

    // The end state.
    const everyJob = new Set(jobIds);
    for (const job of await vmQueue.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed'])) if (job.id !== undefined) everyJob.add(job.id);
    const views = new Map<string, JobView | undefined>();
    for (const id of everyJob) views.set(id, await producer.getJob(id));
    report.jobs = everyJob.size;
    report.tally = tallyJobs(views);
    const desired: Desired[] = [];
    for (const name of names) {
      // A name whose every create the full pool refused was never recorded (SPEC 29).
      if (!lastIntent.has(name)) continue;
      const record = await producer.getVm(name);
      if (record === undefined) {
        report.violations.push(`${name}: no desired state recorded`);
        continue;
      }
      if (record.state !== lastIntent.get(name)) report.violations.push(`${name}: registry says ${record.state}, the last request was ${lastIntent.get(name) ?? '(none)'}`);
      desired.push({ name, state: record.state, ...(record.uid !== undefined ? { uid: record.uid } : {}) });
    }
    const state = await sim.control<SimStateView>('GET', '/_sim/state');
    leases.sample(state);
    report.violations.push(...stateViolations(state, [...desired, ...((await warm?.members()) ?? [])]), ...foreignViolations(state, foreign), ...report.tally.problems, ...(await leases.violations(vmQueue, LEASE_END_BOUND_MS)));
    // SPEC 34: every create took a hold (the default tenant's); each is its VM's, and the sums add up.
    report.violations.push(...holdViolations(state, await redis.hgetall(keys.tenantHolds(keyPrefix)), await redis.hgetall(keys.tenantUse(keyPrefix)), desired));
    if (addresses !== undefined) {
      await addresses.sample(names);
      report.violations.push(...(await addresses.violations(names, true)));
      const seen = addresses.seen();
      log(`addresses: ${seen.leases} leases over ${seen.addresses} addresses, ${report.poolRefusals} creates refused with the pool full`);
    }
    if (warm !== undefined) {
      const guests = await sim.control<GuestFiles>('GET', '/_sim/guests');
      const judged = await warm.violations({ state, guests, views, present: desired.filter((d) => d.state === 'present') });
      report.poolClaims = judged.claims;
      report.violations.push(...judged.violations);
    }
    if (sweepView.state !== 'completed') report.violations.push(`the reconcile sweep ended ${sweepView.state}: ${sweepView.failedReason ?? ''}`);
    report.seconds = (Date.now() - started) / 1000;
    // The story of every name a violation mentions, from its jobs' logs.
    const named = new Set(report.violations.flatMap((v) => /chaos-\d+/.exec(v)?.[0] ?? []));
    for (const [id, view] of views) {
      const name = (view?.data as { name?: string } | undefined)?.name;
      if (view === undefined || name === undefined || !named.has(name)) continue;
      log(`job ${id} ${view.job} ${JSON.stringify(view.data).slice(0, 200)} ${view.state} ${view.failedReason ?? ''} result ${JSON.stringify(view.result)}\n    ${view.logs.join('\n    ')}`);
    }
    return report;
  } finally {
    sampling = false;
    const outputs = workers.map((w) => w?.output() ?? '').join('\n');
    await Promise.all(workers.map((w) => (w === undefined ? Promise.resolve() : w.kill())));
    if (report.violations.length > 0) log(`worker output (last 3000 chars):\n${outputs.slice(-3000)}`);
    await client?.close();
    await vmQueue.close().catch(() => undefined);
    await systemQueue.close().catch(() => undefined);
    await leaseQueue.close().catch(() => undefined);
    await sim?.child.stop();
    if (fleet === undefined) await deletePrefix(redis, prefix).catch(() => undefined);
    redis.disconnect();
    await privateRedis?.close();
    await fleet?.close();
  }
}

/** How often the pool is sampled: often enough to see every cooling address (a cooldown is seconds here). */
const ADDRESS_SAMPLE_MS = 250;

/** The pool of SPEC 29 on both simulated nodes' bridge (their templates' net0 is on vmbr0). */
function addressEnv(cooldownMs: number): Record<string, string> {
  return {
    PROXMOX_NODES: JSON.stringify([
      { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds', bridge: 'vmbr0' },
      { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', bridge: 'vmbr0' },
    ]),
    PROXMOX_NETWORKS: JSON.stringify([{ ...CHAOS_NETWORK, reuseCooldownSeconds: cooldownMs / 1000 }]),
  };
}

/** The uid of a name in the drive (every create of a name carries it). */
export const uidOf = (name: string): string => `uid-${name}`;

/**
 * SPEC 23: a foreign VM at every fourth name's uid VMID on pve2, so its
 * creates meet the VMID taken on the node they clone on (F4) or on the other
 * node (the collision inside the clone task), and must probe forward.
 */
export async function plantForeign(sim: Pick<SimChild, 'control'>, names: string[], range: { min: number; max: number }): Promise<ForeignVm[]> {
  const planted: ForeignVm[] = [];
  for (const [i, name] of names.entries()) {
    if (i % 4 !== 0) continue;
    const vm = { vmid: vmidForUid(uidOf(name), range), node: 'pve2', name: `foreign-${i}` };
    await sim.control('POST', '/_sim/vms', { node: vm.node, vmid: vm.vmid, config: { name: vm.name, memory: 512 }, status: 'running' });
    planted.push(vm);
  }
  return planted;
}
