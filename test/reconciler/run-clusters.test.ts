// SPEC 32 (issue 34): the reconcile job with two clusters, as the worker
// runs it (createReconcileRunner), the registry, the holds and the vm
// queue on the real Redis under a prefix of the test's own, each cluster a
// ProviderDouble behind a router that picks it by ctx.cluster. One run
// under the one sweep lock sweeps both in the configured order; the
// result says per cluster what was done or why it was skipped.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import { clusterKeyPrefix } from '../../src/config/clusters.js';
import { createQueues } from '../../src/queue/queues.js';
import type { Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { keys } from '../../src/redis-keys.js';
import { createReconcileRunner } from '../../src/reconciler/run.js';
import type { ClustersReport } from '../../src/reconciler/cluster-report.js';
import { captureLogger } from '../support/capture-logger.js';
import { holdJson, putHold, testHold } from '../support/tenant-holds.js';
import { OUR_TAG, ProviderDouble, mark } from './support.js';
import { RouterDouble, UnreachableDouble } from './clusters-support.js';

const NODE = { name: 'n1', template: 9001, isoStorage: 'seeds' };
/** An hour on: what the test records now is past the grace period. */
const SWEEP_AT = new Date(Date.now() + 3600_000);
const OLD = new Date(Date.now() - 3600_000);

describe('the reconcile job with several clusters (SPEC 32, real Redis)', function () {
  this.timeout(20_000);
  const prefix = `pvep-test-recon-clusters-${randomBytes(4).toString('hex')}`;
  let redis: Redis;
  let queues: Queues;
  let registry: DesiredStateRegistry;

  beforeEach(() => {
    redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    registry = new DesiredStateRegistry(redis, prefix, 3600);
  });

  afterEach(async () => {
    await queues.vm.obliterate({ force: true }).catch(() => undefined);
    await queues.close();
    const left = await redis.keys(`${prefix}*`);
    if (left.length > 0) await redis.del(...left);
    await redis.quit();
  });

  function runner(c1: ProviderDouble, c2: ProviderDouble) {
    const config = loadConfig({
      env: {},
      overrides: {
        redis: { prefix },
        proxmox: { nodes: [NODE], clusters: [{ name: 'c1', url: 'https://127.0.0.1:8006' }, { name: 'c2', url: 'https://127.0.0.1:8007' }] },
        reconciler: { graceSeconds: 900 },
      },
    });
    queues = createQueues(redis, prefix, config.jobs);
    const { logger, records } = captureLogger('warn');
    const lines: string[] = [];
    const run = createReconcileRunner({
      config,
      redis,
      provider: new RouterDouble(
        new Map([
          ['c1', c1],
          ['c2', c2],
        ]),
        'c1',
      ),
      queues,
      registry,
      locks: new NameLocks(redis, prefix),
      logger,
      now: () => SWEEP_AT,
    });
    const sweep = async (): Promise<ClustersReport> => {
      const outcome = await run({ dryRun: false }, { signal: new AbortController().signal, log: (line) => void lines.push(line) });
      if ('skipped' in outcome) throw new Error('the sweep was skipped');
      return outcome as ClustersReport;
    };
    return { sweep, lines, warnings: records };
  }

  it("says per cluster what it did or why it skipped it, deletes where the VM is, and frees no hold of the skipped cluster's names", async () => {
    const c1 = new ProviderDouble().addVm({ vmid: 100, node: 'n1', name: 'old', tags: [OUR_TAG], description: mark('u-old', OLD) });
    // The same VMID on c2, for another name.
    const c2 = new UnreachableDouble().addVm({ vmid: 100, node: 'n1', name: 'far', tags: [OUR_TAG], description: mark('u-far', OLD) });
    // old: deleted, its VM on c1 still there. far: c2's, made again with a new uid, its old uid's hold left behind.
    await registry.recordPresent('old', 'u-old', { name: 'old', uid: 'u-old' });
    await registry.recordAbsent('old', undefined);
    await registry.recordPresent('far', 'u-far', { name: 'far', uid: 'u-far', cluster: 'c2' });
    await putHold(redis, prefix, 'far', 'u-far-old', testHold('acme'));
    const { sweep, lines, warnings } = runner(c1, c2);

    const report = await sweep();

    expect(report.clusters.map((c) => [c.name, c.state])).to.deep.equal([
      ['c1', 'swept'],
      ['c2', 'skipped'],
    ]);
    const [first, second] = report.clusters;
    if (first?.state !== 'swept' || second?.state !== 'skipped') throw new Error('unexpected outcomes');
    expect(second.reason).to.equal('its listing failed: connect ECONNREFUSED 127.0.0.1:8006');
    expect(first.report.orphans.deleted.map((o) => [o.name, o.reason])).to.deep.equal([['old', 'tombstoned name']]);
    // The whole run's report: the swept clusters' lists and counts together.
    expect(report.orphans.deleted.map((o) => o.name)).to.deep.equal(['old']);
    expect(report.counts).to.include({ orphansDeleted: 1, tenantHoldsFreed: 0, listed: 1 });
    expect(await holdJson(redis, prefix, 'far', 'u-far-old'), "the skipped cluster's name keeps its hold").to.not.equal(null);

    const jobs = await queues.vm.getJobs(['waiting']);
    expect(jobs.map((job): [string, unknown] => [job.name, job.data])).to.deep.equal([['delete', { name: 'old', uid: 'u-old', generation: 2, cluster: 'c1' }]]);
    expect(lines).to.include('cluster c2: skipped, nothing of its names judged: its listing failed: connect ECONNREFUSED 127.0.0.1:8006');
    expect(lines.some((line) => line.startsWith('cluster c1: listed 1, ours 1; orphan VMs deleted 1'))).to.equal(true);
    expect(lines.some((line) => line.startsWith('cluster c1: enqueued job'))).to.equal(true);
    expect(warnings.map((w) => [w.cluster, w.msg])).to.deep.equal([
      ['c2', 'reconcile: cluster c2 skipped, nothing of its names judged (deleted, created again or freed): its listing failed: connect ECONNREFUSED 127.0.0.1:8006'],
    ]);
    // Each cluster counts its own sweeps since its seed listing; the one-cluster key is not used.
    expect(await redis.get(keys.sweepsSinceSeedListing(clusterKeyPrefix(prefix, 'c1')))).to.equal('0');
    expect(await redis.get(keys.sweepsSinceSeedListing(clusterKeyPrefix(prefix, 'c2')))).to.equal('1');
    expect(await redis.exists(keys.sweepsSinceSeedListing(prefix))).to.equal(0);
    expect(await redis.exists(keys.sweepLock(prefix)), 'the one sweep lock, released').to.equal(0);

    // c2 back: its name's old uid's hold is freed in its own sweep.
    c2.reachable = true;
    const back = await sweep();
    expect(back.clusters.map((c) => c.state)).to.deep.equal(['swept', 'swept']);
    const c2Report = back.clusters[1];
    if (c2Report?.state !== 'swept') throw new Error('c2 not swept');
    expect(c2Report.report.tenantHolds.freed.map((h) => [h.name, h.uid])).to.deep.equal([['far', 'u-far-old']]);
    expect(await holdJson(redis, prefix, 'far', 'u-far-old')).to.equal(null);
  });

  it("frees no hold of a present name's other uid while a cluster is skipped: that uid's VM may be there (a name created again elsewhere)", async () => {
    // moved: made on c2 with u-moved-old, deleted, created again on c1 (naming it) while c2 was away; its old VM is still on c2.
    const c1 = new ProviderDouble().addVm({ vmid: 101, node: 'n1', name: 'moved', tags: [OUR_TAG], description: mark('u-moved-new', OLD) });
    const c2 = new UnreachableDouble().addVm({ vmid: 100, node: 'n1', name: 'moved', tags: [OUR_TAG], description: mark('u-moved-old', OLD) });
    await registry.recordPresent('moved', 'u-moved-new', { name: 'moved', uid: 'u-moved-new', cluster: 'c1' });
    await putHold(redis, prefix, 'moved', 'u-moved-old', testHold('acme'));
    const { sweep } = runner(c1, c2);

    const report = await sweep();

    expect(report.clusters.map((c) => c.state)).to.deep.equal(['swept', 'skipped']);
    expect(report.tenantHolds).to.deep.equal({ freed: [], pending: [] });
    expect(await holdJson(redis, prefix, 'moved', 'u-moved-old'), 'its VM on the skipped cluster still counts').to.not.equal(null);

    // c2 back, the VM still there: it keeps the hold (c2's sweep deletes it as an orphan, and its delete ends the hold).
    c2.reachable = true;
    await sweep();
    expect(await holdJson(redis, prefix, 'moved', 'u-moved-old')).to.not.equal(null);
  });
});
