// SPEC 32 (issue 34): the processor gives each job's operations their
// cluster. A job's data that names one wins (a create placed at the
// accept); else, in the several-clusters form, the name's record's
// spec.cluster; else none, which the provider of several clusters takes
// for the first cluster (a check of a name with no record goes there).
// The one-cluster form reads no record for it.
import { DelayedError, type Job } from 'bullmq';
import sinon from 'sinon';
import { expect } from 'chai';
import { buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import type { AnyJobDefinition } from '../../jobs/types.js';
import { limitsFromConfig, type JobLimits } from '../../src/job-table/schema.js';
import { clusterRoutedProvider } from '../../src/provider/cluster-router.js';
import type { ListedVm, Provider } from '../../src/provider/types.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { awayWaitOf, recordedClusterOf } from '../../src/worker/job-cluster.js';
import type { LastHealth } from '../../src/queue/health-store.js';
import type { NodeHealth } from '../../src/provider/types.js';
import { createProcessor, type JobProcessor } from '../../src/worker/processor.js';
import { createHarness, type Harness } from '../support/harness.js';
import { testJobDeps } from '../support/processor-deps.js';

const SPEC = { cores: 2, memoryMiB: 2048, diskGiB: 10 };

/** The job definitions with create's, delete's and check's handlers replaced by one that notes ctx.cluster. */
function noting(seen: (string | undefined)[]): AnyJobDefinition[] {
  return jobDefinitions.map((definition) =>
    ['create', 'delete', 'check'].includes(definition.name)
      ? {
          ...definition,
          handler: (_data, _deps, ctx) => {
            seen.push(ctx.cluster);
            return Promise.resolve({ state: 'NotFound' });
          },
        }
      : definition,
  );
}

/** A provider that says which cluster each look-up reached. */
function reaching(cluster: string, reached: string[]): Provider {
  const unused = (): Promise<never> => Promise.reject(new Error(`not used by these tests (cluster ${cluster})`));
  return {
    get: () => {
      reached.push(cluster);
      return Promise.resolve({ state: 'NotFound' });
    },
    findByName: (): Promise<ListedVm[]> => {
      reached.push(cluster);
      return Promise.resolve([]);
    },
    findByNames: unused,
    listByTag: unused,
    listTaggedOrNamed: unused,
    listSeeds: unused,
    listRecordedSeeds: unused,
    deleteSeed: unused,
    create: unused,
    claim: unused,
    delete: unused,
    stop: unused,
    health: unused,
  };
}

describe('the processor gives a job its cluster (SPEC 32)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  /** Limits of two clusters, east (the first) and west, each as the test config's. */
  function twoClusters(): JobLimits {
    const limits = limitsFromConfig(h.config);
    const cluster = (name: string) => ({ name, nodes: limits.nodes, images: limits.images, defaultImage: limits.defaultImage });
    return { ...limits, clusters: [cluster('east'), cluster('west')] };
  }

  function processor(definitions: readonly AnyJobDefinition[], several: boolean, provider: Provider = h.provider): { run: JobProcessor; registry: DesiredStateRegistry } {
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const deps = testJobDeps(provider, registry, locks);
    const limits = several ? twoClusters() : limitsFromConfig(h.config);
    const run = createProcessor({ definitions: buildJobRegistry(definitions), deps, limits, registry, locks, lockTtlMs: 5000, ...(several ? { recordedCluster: recordedClusterOf(registry) } : {}) });
    return { run, registry };
  }

  async function queued(jobId: string): Promise<Job> {
    const job = await h.queues.vm.getJob(jobId);
    if (!job) throw new Error(`job ${jobId} is missing`);
    return job;
  }

  it("a create's cluster is the one its data names", async () => {
    h = createHarness('cluster-create');
    const seen: (string | undefined)[] = [];
    const { run } = processor(noting(seen), true);
    const job = await queued((await h.client.createVm({ name: 'placed', uid: 'u1' })).jobId);
    await job.updateData({ ...(job.data as object), cluster: 'west' });
    await run(await queued(job.id ?? ''), 'token');
    expect(seen).to.deep.equal(['west']);
  });

  it("a job whose data names none takes its name's recorded cluster", async () => {
    h = createHarness('cluster-record');
    const seen: (string | undefined)[] = [];
    const { run, registry } = processor(noting(seen), true);
    await registry.recordPresent('on-west', 'u1', { name: 'on-west', uid: 'u1', ...SPEC, cluster: 'west' });
    await registry.recordPresent('on-first', 'u2', { name: 'on-first', uid: 'u2', ...SPEC });
    await run(await queued((await h.client.checkVm({ name: 'on-west' })).jobId), 'token');
    await run(await queued((await h.client.checkVm({ name: 'on-first' })).jobId), 'token');
    await run(await queued((await h.client.checkVm({ name: 'never-made' })).jobId), 'token');
    expect(seen).to.deep.equal(['west', undefined, undefined]);
  });

  it('a check of a name with no cluster looks on the first cluster; one recorded on another looks there', async () => {
    h = createHarness('cluster-check-first');
    const reached: string[] = [];
    const router = clusterRoutedProvider(new Map([['east', reaching('east', reached)], ['west', reaching('west', reached)]]), 'east');
    const { run, registry } = processor(jobDefinitions, true, router);
    await run(await queued((await h.client.checkVm({ name: 'unknown-name' })).jobId), 'token');
    await registry.recordPresent('on-west', 'u1', { name: 'on-west', uid: 'u1', ...SPEC, cluster: 'west' });
    await run(await queued((await h.client.checkVm({ name: 'on-west' })).jobId), 'token');
    expect(reached).to.deep.equal(['east', 'west']);
  });

  it('a job holding a name whose cluster is away waits, delayed and not an attempt, and its handler does not run; another cluster\'s runs', async () => {
    h = createHarness('cluster-away');
    const seen: (string | undefined)[] = [];
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const awayWaitMs = (cluster: string | undefined): Promise<number | undefined> => Promise.resolve(cluster === 'west' ? 60_000 : undefined);
    const run = createProcessor({ definitions: buildJobRegistry(noting(seen)), deps: testJobDeps(h.provider, registry, locks), limits: twoClusters(), registry, locks, lockTtlMs: 5000, recordedCluster: recordedClusterOf(registry), awayWaitMs });
    const onWest = await queued((await h.client.createVm({ name: 'on-west', uid: 'u1' })).jobId);
    await onWest.updateData({ ...(onWest.data as object), cluster: 'west' });
    const onEast = await queued((await h.client.createVm({ name: 'on-east', uid: 'u2' })).jobId);
    await onEast.updateData({ ...(onEast.data as object), cluster: 'east' });
    const westJob = await queued(onWest.id ?? '');
    // Run here, not taken by a worker: BullMQ's move needs the worker's lock, so its call is what is checked.
    const moved = sinon.stub(westJob, 'moveToDelayed').resolves();
    let thrown: unknown;
    await run(westJob, 'token').catch((err: unknown) => (thrown = err));
    await run(await queued(onEast.id ?? ''), 'token');
    expect(thrown, 'the away job is delayed').to.be.instanceOf(DelayedError);
    expect(moved.calledOnce).to.equal(true);
    expect((moved.firstCall.args[0]) - Date.now()).to.be.within(50_000, 60_000);
    expect(seen).to.deep.equal(['east']);
    expect((await queued(onWest.id ?? '')).attemptsMade, 'not an attempt').to.equal(0);
    expect(await locks.isHeld('on-west'), 'its name is free meanwhile').to.equal(false);
    expect((await h.queues.vm.getJobLogs(onWest.id ?? '')).logs.join('\n')).to.include('cluster west was away in the last health check');
  });

  it('the one-cluster form gives no cluster and reads none from the record', async () => {
    h = createHarness('cluster-one');
    const seen: (string | undefined)[] = [];
    const { run, registry } = processor(noting(seen), false);
    await registry.recordPresent('named', 'u1', { name: 'named', uid: 'u1', ...SPEC, cluster: 'west' });
    await run(await queued((await h.client.checkVm({ name: 'named' })).jobId), 'token');
    expect(seen).to.deep.equal([undefined]);
  });
});

describe("a name's recorded cluster (SPEC 32)", () => {
  const records: Record<string, { spec?: Record<string, unknown>; cluster?: string } | undefined> = {
    present: { spec: { cluster: 'west' } },
    tombstone: { cluster: 'west' },
    first: { spec: {} },
  };
  const recorded = recordedClusterOf({ get: (name) => Promise.resolve(records[name]) });

  it("is the spec's, else the cluster a tombstone keeps beside it, else none (the first cluster)", async () => {
    expect(await Promise.all(['present', 'tombstone', 'first', 'never'].map(recorded))).to.deep.equal(['west', 'west', undefined, undefined]);
  });
});

describe('how long a job of an away cluster waits (SPEC 32)', () => {
  const node = (name: string, cluster: string, reason?: 'Unreachable'): NodeHealth => ({ node: name, cluster, ok: reason === undefined, reasons: reason === undefined ? [] : [{ reason, detail: 'connect ECONNREFUSED' }] });
  const last: LastHealth = { at: '2026-12-03T00:00:00.000Z', nodes: [node('pve1', 'east'), node('pve1', 'west', 'Unreachable'), node('pve2', 'west', 'Unreachable')] };
  const clusters = [{ name: 'east' }, { name: 'west' }];

  it('a health interval, give or take half, for the cluster the last health found away; nothing for one up, or when the health cannot be read', async () => {
    const wait = awayWaitOf(() => Promise.resolve(last), clusters, 10_000, () => 0.5);
    expect(await wait('west')).to.equal(10_000);
    expect(await wait('east')).to.equal(undefined);
    expect(await wait(undefined), 'none: the first cluster, east').to.equal(undefined);
    expect(await awayWaitOf(() => Promise.resolve(last), [{ name: 'west' }, { name: 'east' }], 10_000, () => 0)(undefined), 'none: the first, here west').to.equal(5_000);
    expect(await awayWaitOf(() => Promise.reject(new Error('Redis down')), clusters, 10_000)('west')).to.equal(undefined);
  });
});
