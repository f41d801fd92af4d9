// The sweep's real surroundings for the scenario tests: createProvider over
// the FakeProxmox seam fake, and the job layer's registry, name locks and
// vm queue on the real Redis under a prefix of the test's own.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Job } from 'bullmq';
import { loadConfig } from '../../src/config/index.js';
import type { Config } from '../../src/config/index.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { createSpecFields } from '../../src/job-table/create.schema.js';
import { validateFields } from '../../src/job-table/fields.js';
import { createQueues } from '../../src/queue/queues.js';
import type { Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { keys } from '../../src/redis-keys.js';
import { redisSeedRecords } from '../../src/queue/seed-records.js';
import { formatMark } from '../../src/provider/mark.js';
import { createReconcileRunner } from '../../src/reconciler/run.js';
import type { ReconcileOutcome } from '../../src/reconciler/run.js';
import type { SweepReport } from '../../src/reconciler/report.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import type { FakeVm } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, TAG } from '../provider/harness.js';
import { captureLogger } from '../support/capture-logger.js';
import type { NetworkPoolConfig } from '../../src/config/types.js';
import type { Harness } from '../provider/harness.js';

export const NODE = 'pv1-1';
export const SEEDS = 'proxy-seeds';
export const GRACE_SECONDS = 900;
/** The sweep runs an hour from now: what the test records now is past the grace period. */
export const SWEEP_AT = new Date(Date.now() + 3600_000);
export const YOUNG = new Date(SWEEP_AT.getTime() - 60_000);

export interface ProxmoxWorld {
  pve: FakeProxmox;
  h: Harness;
  redis: Redis;
  prefix: string;
  config: Config;
  registry: DesiredStateRegistry;
  locks: NameLocks;
  queues: Queues;
  findings: string[];
  /** The pools whose unleased addresses the sweeps counted (SPEC 29), one per count. */
  unleasedSeen: string[];
  /** What the sweeps logged at warn and above, parsed. */
  warnings: Record<string, unknown>[];
  /** The job log lines of every sweep. */
  lines: string[];
  /** A sweep as the schedule runs it; given a job id, as that job (`reconcile-<uuid>`: asked for by hand). */
  sweep(dryRun?: boolean, jobId?: string): Promise<ReconcileOutcome>;
  report(dryRun?: boolean, jobId?: string): Promise<SweepReport>;
  /** Desired `present`, as the producer records it. */
  present(name: string, uid: string): Promise<number>;
  /** Desired `absent` after a create: a tombstone. */
  tombstone(name: string, uid: string): Promise<number>;
  /** Recorded once, tombstone since expired: only the generation remains. */
  expired(name: string, uid: string): Promise<void>;
  ourVm(name: string, uid: string, options?: { tagged?: boolean; createdAt?: Date; vmid?: number }): FakeVm;
  seed(name: string, ctime?: Date): string;
  seedsLeft(): string[];
  /** The jobs the sweep added, as [job, name, uid]. */
  added(): Promise<[string, string, string | undefined][]>;
  addedJobs(): Promise<Job[]>;
  /** Every seam call that changes something in Proxmox. */
  writes(): string[];
  close(): Promise<void>;
}

const WRITES = ['clone', 'putConfig', 'resize', 'start', 'stop', 'destroy', 'upload', 'deleteVolume'] as const;

export function proxmoxWorld(options: { pve?: FakeProxmox; recreateMissing?: boolean; seedRecords?: boolean; seedListingEvery?: number; networks?: NetworkPoolConfig[] } = {}): ProxmoxWorld {
  const pve = options.pve ?? new FakeProxmox();
  const prefix = `pvep-test-recon-${randomBytes(4).toString('hex')}`;
  const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  // With seedRecords the provider records its uploads in Redis, as the worker's does (SPEC 5, 26).
  const h = harness({ pve, ...(options.seedRecords ? { seedRecords: redisSeedRecords(redis, prefix) } : {}) });
  const config = loadConfig({
    env: {},
    overrides: {
      redis: { prefix },
      proxmox: { nodes: [{ name: NODE, template: 9001, isoStorage: SEEDS }], ...(options.networks ? { networks: options.networks } : {}) },
      reconciler: { graceSeconds: GRACE_SECONDS, recreateMissing: options.recreateMissing ?? true, ...(options.seedListingEvery ? { seedListingEvery: options.seedListingEvery } : {}) },
    },
  });
  const registry = new DesiredStateRegistry(redis, prefix, 3600);
  const locks = new NameLocks(redis, prefix);
  const queues = createQueues(redis, prefix, config.jobs);
  const findings: string[] = [];
  const unleasedSeen: string[] = [];
  const { logger, records: warnings } = captureLogger('warn');
  const lines: string[] = [];
  const run = createReconcileRunner({
    config,
    redis,
    provider: h.provider,
    queues,
    registry,
    locks,
    metrics: { reconcilerFindings: (kind, count) => findings.push(...Array<string>(count).fill(kind)) },
    addressMetrics: { addressUnleasedSeen: (pool) => unleasedSeen.push(pool) },
    logger,
    now: () => SWEEP_AT,
  });
  const limits = limitsFromConfig(config);
  const spec = (name: string, uid: string): Record<string, unknown> => {
    const valid = validateFields<Record<string, unknown>>(createSpecFields, { name, uid }, limits);
    if (!valid.ok) throw new Error(`bad test spec: ${JSON.stringify(valid.errors)}`);
    return { ...valid.value };
  };
  const world: ProxmoxWorld = {
    pve,
    h,
    redis,
    prefix,
    config,
    registry,
    locks,
    queues,
    findings,
    unleasedSeen,
    warnings,
    lines,
    sweep: (dryRun = false, jobId?: string) => run({ dryRun }, { signal: new AbortController().signal, log: (line) => void lines.push(line), ...(jobId === undefined ? {} : { jobId }) }),
    async report(dryRun = false, jobId?: string) {
      const outcome = await world.sweep(dryRun, jobId);
      if ('skipped' in outcome) throw new Error('the sweep was skipped');
      return outcome;
    },
    async present(name, uid) {
      const outcome = await registry.recordPresent(name, uid, spec(name, uid));
      if (outcome.kind === 'conflict') throw new Error('conflict');
      return outcome.generation;
    },
    async tombstone(name, uid) {
      await world.present(name, uid);
      const outcome = await registry.recordAbsent(name, undefined);
      return outcome.generation;
    },
    async expired(name, uid) {
      await world.tombstone(name, uid);
      await redis.del(keys.desired(prefix, name));
    },
    ourVm(name, uid, vmOptions = {}) {
      return addOurVm(pve, name, uid, {
        ...(vmOptions.vmid === undefined ? {} : { vmid: vmOptions.vmid }),
        config: {
          tags: vmOptions.tagged === false ? 'debian' : `debian;${TAG}`,
          ...(vmOptions.createdAt ? { description: formatMark(uid, vmOptions.createdAt) } : {}),
        },
      });
    },
    seed(name, ctime) {
      const volid = `${SEEDS}:iso/${name}-seed.iso`;
      pve.addVolume(NODE, SEEDS, volid);
      const volume = pve.volumes(NODE, SEEDS).find((v) => v.volid === volid);
      if (volume && ctime) volume.ctime = Math.floor(ctime.getTime() / 1000);
      return volid;
    },
    seedsLeft: () => pve.volumes(NODE, SEEDS).map((v) => v.volid).sort(),
    addedJobs: () => queues.vm.getJobs(['waiting']),
    async added() {
      const jobs = await world.addedJobs();
      return jobs
        .map((job): [string, string, string | undefined] => {
          const data = job.data as { name: string; uid?: string };
          return [job.name, data.name, data.uid];
        })
        .sort((a, b) => a.join().localeCompare(b.join()));
    },
    writes: () => pve.calls.filter((c) => (WRITES as readonly string[]).includes(c.method)).map((c) => `${c.method} ${c.args.map(String).join(' ')}`),
    async close() {
      await queues.vm.obliterate({ force: true }).catch(() => undefined);
      await queues.close();
      const left = await redis.keys(`${prefix}:*`);
      if (left.length > 0) await redis.del(...left);
      await redis.quit();
    },
  };
  return world;
}
