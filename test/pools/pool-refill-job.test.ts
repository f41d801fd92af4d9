// SPEC 30: the pool-refill system job in a worker service (real Redis, a
// prefix of its own; the harness's recording provider makes the VMs):
// the refill records and adds the members' creates, the worker makes
// them, and each ended Running with its address is idle. Scheduled every
// 30 s when the worker has pools. The pool store is the in-memory fake
// (not under test here); fingerprint and claim are stand-ins.
import { expect } from 'chai';
import { ownJobId } from '../../src/job-table/job-ids.js';
import type { PoolConfig, PoolShape } from '../../src/pools/types.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { silentLogger } from '../../src/log.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { poolJobDeps } from '../../src/worker/pool-deps.js';
import type { PoolWiring } from '../../src/worker/pool-deps.js';
import { InMemoryPoolStore } from '../fakes/pool-store.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { eventually } from '../support/redis.js';

const fingerprint = (shape: PoolShape) => `${shape.image}/${shape.cores}/${shape.memoryMiB}/${shape.diskGiB}`;

describe('the pool-refill job (SPEC 30)', function () {
  this.timeout(20_000);
  let h: Harness;
  let store: InMemoryPoolStore;
  let wiring: PoolWiring;

  beforeEach(() => {
    h = createHarness('pool-refill');
    store = new InMemoryPoolStore();
    const pool: PoolConfig = { name: 'small', image: 'default', cores: 1, memoryMiB: 512, diskGiB: 4, minIdle: 2, maxIdle: 2, maxAgeMinutes: 0 };
    wiring = { configs: [pool], store: () => store, fingerprint, claimVm: () => Promise.reject(new Error('no claims here')), isClaimLost: () => false };
  });

  afterEach(async () => {
    await h.close();
  });

  it('fills a pool to minIdle with idle members made by ordinary creates', async () => {
    await h.startWorker({ pools: wiring });
    const job = await h.queues.system.add('pool-refill', {}, { jobId: ownJobId('pool-refill') });
    const view = await h.client.waitForJob(job.id ?? '', { timeoutMs: 10_000 });
    expect(view).to.include({ job: 'pool-refill', state: 'completed' });
    expect(view.result).to.deep.equal({ pools: [{ pool: 'small', created: ['pvep-pool-small-1', 'pvep-pool-small-2'], forgotten: [], drained: [] }] });
    const idle = await eventually(async () => {
      const members = await store.members('small');
      return members.every((m) => m.idle) ? members : undefined;
    });
    expect(idle.map((m) => [m.name, m.address])).to.deep.equal([
      ['pvep-pool-small-1', '192.0.2.10'],
      ['pvep-pool-small-2', '192.0.2.10'],
    ]);
    expect(await h.provider.vm('pvep-pool-small-1')).to.include({ uid: idle[0]?.uid });
  });

  it("a claim's refill is a pool-refill of that pool on the system queue, behind every job of no priority", async () => {
    const limits = limitsFromConfig(h.config);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const pools = poolJobDeps(wiring, { config: h.config, redis: h.redis, prefix: h.prefix, queues: h.queues, registry, door: jobDoor(h.queues, limits), limits, logger: silentLogger() });
    await pools.enqueueRefill('small');
    const [job, ...more] = await h.queues.system.getPrioritized();
    expect(more).to.have.length(0);
    expect(job?.name).to.equal('pool-refill');
    expect(job?.data).to.deep.equal({ pool: 'small' });
    expect(job?.opts.priority).to.be.greaterThan(0);
  });

  it('is scheduled every 30 s with the other system jobs when the worker has pools', async () => {
    await h.startWorker({ pools: wiring, schedule: true, healthAtStart: false });
    const schedulers = await h.queues.system.getJobSchedulers();
    expect(schedulers.find((s) => s.name === 'pool-refill')).to.deep.include({ every: 30_000 });
  });

  it('runs once at every start too, not only on the schedule that a restart finds already due up to 30 s later', async () => {
    const first = await h.startWorker({ pools: wiring, schedule: true, healthAtStart: false });
    await first.close();
    await h.startWorker({ pools: wiring, schedule: true, healthAtStart: false });
    const refills = await h.queues.system.getJobs(['waiting', 'prioritized', 'active', 'completed']);
    const own = refills.filter((job) => job.name === 'pool-refill' && !(job.id ?? '').startsWith('repeat:'));
    expect(own, 'one refill added by each start').to.have.length(2);
  });
});
