// SPEC 30 (issue 32, review item 8): one refill of a pool waits at a
// time. Each claim enqueues a refill of its pool; a burst of claims adds
// one job, not one per claim, and a claim while that refill runs still
// leaves one more waiting behind it (what it claimed is refilled). Real
// Redis, a prefix of its own, through the worker's own enqueueRefill.
import { expect } from 'chai';
import { Worker } from 'bullmq';
import { isJobIdShape } from '../../src/job-table/job-ids.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { silentLogger } from '../../src/log.js';
import type { PoolJobDeps } from '../../src/pools/job-deps.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { poolJobDeps, type PoolWiring } from '../../src/worker/pool-deps.js';
import { InMemoryPoolStore } from '../fakes/pool-store.js';
import { createHarness, type Harness } from '../support/harness.js';

describe('one waiting refill per pool (SPEC 30)', function () {
  this.timeout(20_000);
  let h: Harness;
  let pools: PoolJobDeps;
  let worker: Worker | undefined;
  let connection: ReturnType<Harness['redis']['duplicate']> | undefined;

  beforeEach(() => {
    h = createHarness('refill-once');
    const limits = limitsFromConfig(h.config);
    const wiring: PoolWiring = { configs: [], store: () => new InMemoryPoolStore(), fingerprint: () => 'fp', claimVm: () => Promise.reject(new Error('no claims here')), isClaimLost: () => false };
    pools = poolJobDeps(wiring, { config: h.config, redis: h.redis, prefix: h.prefix, queues: h.queues, registry: new DesiredStateRegistry(h.redis, h.prefix, 60), door: jobDoor(h.queues, limits), limits, logger: silentLogger() });
  });
  afterEach(async () => {
    await worker?.close();
    connection?.disconnect();
    worker = undefined;
    connection = undefined;
    await h.close();
  });

  const waiting = async () => (await h.queues.system.getJobs(['prioritized', 'waiting'])).filter((job) => job.name === 'pool-refill');

  it('twenty claims of one pool leave one refill waiting, of its own id shape; another pool has its own', async () => {
    for (let i = 0; i < 20; i += 1) await pools.enqueueRefill('small');
    await pools.enqueueRefill('big');
    const jobs = await waiting();
    expect(jobs.map((job) => job.data as unknown)).to.have.deep.members([{ pool: 'small' }, { pool: 'big' }]);
    expect(jobs.every((job) => isJobIdShape(job.id ?? '') && (job.opts.priority ?? 0) > 0)).to.equal(true);
  });

  it('a claim while the refill runs leaves one more waiting behind it, and a burst then still one', async () => {
    await pools.enqueueRefill('small');
    // A worker of no processor takes the job by hand: it is active, as a refill running.
    connection = h.redis.duplicate();
    worker = new Worker(h.queues.system.name, undefined, { connection, prefix: h.queues.system.opts.prefix });
    const token = 'test-token';
    const running = await worker.getNextJob(token);
    expect(running?.name).to.equal('pool-refill');
    expect(await waiting()).to.have.length(0);
    for (let i = 0; i < 5; i += 1) await pools.enqueueRefill('small');
    await running?.moveToCompleted({ pools: [] }, token, false);
    const next = await waiting();
    expect(next.map((job) => job.data as unknown)).to.deep.equal([{ pool: 'small' }]);
    expect(next[0]?.id).to.not.equal(running?.id);
    for (let i = 0; i < 5; i += 1) await pools.enqueueRefill('small');
    expect(await waiting()).to.have.length(1);
  });
});
