// SPEC 30: the refill's action on one pool against the real registry and
// door (real Redis, a prefix of its own): members recorded present and
// their creates added behind callers' jobs; drained members recorded
// absent with a delete job. The pool store is the in-memory fake: the
// store is not what is under test here.
import { expect } from 'chai';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import type { JobLimits } from '../../src/job-table/schema.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { acceptCreate, type IntentWriters } from '../../src/queue/intent.js';
import { ValidationError } from '../../src/queue/producer-errors.js';
import { memberInput } from '../../src/pools/member-create.js';
import { createQueues } from '../../src/queue/queues.js';
import type { Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keyPrefixOf } from '../../src/queue/redis-target.js';
import { refillPool, refillPools } from '../../src/pools/refill.js';
import type { RefillDeps } from '../../src/pools/refill.js';
import type { PoolConfig, PoolShape } from '../../src/pools/types.js';
import { InMemoryPoolStore } from '../fakes/pool-store.js';
import { deletePrefix, newRedis, testConfig, uniquePrefix } from '../support/redis.js';

const dataOf = (job: Job | undefined): Record<string, unknown> => (job?.data ?? {}) as Record<string, unknown>;
const fingerprint = (shape: PoolShape) => `${shape.image}/${shape.cores}/${shape.memoryMiB}/${shape.diskGiB}`;

describe('the refill of a pool (SPEC 30)', () => {
  let redis: Redis;
  let prefix: string;
  let queues: Queues;
  let registry: DesiredStateRegistry;
  let store: InMemoryPoolStore;
  let limits: JobLimits;
  let pool: PoolConfig;
  let deps: RefillDeps;

  beforeEach(() => {
    const config = testConfig(uniquePrefix('refill'));
    prefix = keyPrefixOf(config.redis.prefix, config.redis);
    redis = newRedis();
    queues = createQueues(redis, prefix);
    registry = new DesiredStateRegistry(redis, prefix, 60);
    limits = limitsFromConfig(config);
    store = new InMemoryPoolStore();
    pool = { name: 'small', image: limits.defaultImage, cores: 1, memoryMiB: 512, diskGiB: 10, minIdle: 2, maxIdle: 3, maxAgeMinutes: 60 };
    const writers: IntentWriters = { door: jobDoor(queues, limits), registry, limits, leaseTimer: { set: () => Promise.resolve(), clear: () => Promise.resolve() } };
    deps = { store, writers, fingerprint };
  });

  afterEach(async () => {
    await queues.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it("creates members up to minIdle as ordinary creates: recorded present, the pool's shape, no keys, waiting for the address, behind callers' jobs", async () => {
    const outcome = await refillPool(deps, 'small', pool);
    expect(outcome.created).to.deep.equal(['pvep-pool-small-1', 'pvep-pool-small-2']);
    for (const name of outcome.created) {
      const record = await registry.get(name);
      expect(record?.state, name).to.equal('present');
      expect(record?.uid).to.equal(store.entries.get(name)?.uid);
      // The spec the sweep re-creates a lost job from says it is a member too.
      expect(record?.spec).to.include({ poolMember: 'small' });
    }
    const jobs = await queues.vm.getPrioritized();
    expect(jobs.map((job) => dataOf(job).name).sort()).to.deep.equal(outcome.created);
    expect(await queues.vm.getWaiting(), 'nothing ahead of callers').to.have.length(0);
    const data = dataOf(jobs[0]);
    expect(data).to.include({ image: pool.image, cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: true, poolMember: 'small' });
    expect(data).to.not.have.property('sshKeys');
    expect((await refillPool(deps, 'small', pool)).created, 'the creating ones count').to.deep.equal([]);
  });

  it("a member's create is acceptCreate's, the one accept: with poolMember and background order its record and job say poolMember, it waits behind callers' jobs, has no lease with leases.defaultSeconds set, and never claims; without poolMember the reserved name is refused", async () => {
    const leased: JobLimits = { ...limits, leases: { ...limits.leases, defaultSeconds: 3600 } };
    const writers: IntentWriters = { ...deps.writers, limits: leased, door: jobDoor(queues, leased) };
    const member = { name: 'pvep-pool-small-7', uid: 'uid-small-7' };
    const accepted = await acceptCreate(writers, memberInput(pool, member, leased), { poolMember: 'small', order: 'background' });
    expect(accepted).to.include({ name: member.name, uid: member.uid, existing: false, origin: 'cold' });
    expect(accepted).to.not.have.property('expiresAt');
    expect((await registry.get(member.name))?.spec).to.include({ poolMember: 'small' });
    expect((await registry.get(member.name))?.lease).to.equal(undefined);
    const [job, ...more] = await queues.vm.getPrioritized();
    expect(more).to.have.length(0);
    expect(dataOf(job)).to.include({ name: member.name, poolMember: 'small', waitForAddress: true });
    const again = await acceptCreate(writers, memberInput(pool, member, leased), { poolMember: 'small', order: 'background' });
    expect(again).to.include({ existing: true, jobId: accepted.jobId });
    const refused = await acceptCreate(writers, memberInput(pool, { name: 'pvep-pool-small-8', uid: 'u8' }, leased)).catch((err: unknown) => err);
    expect(refused).to.be.instanceOf(ValidationError);
    expect((refused as ValidationError).fields.map((e) => e.field)).to.deep.equal(['name']);
  });

  it('drains an idle member of a changed shape: taken, recorded absent with a delete job, its entry gone; then refills', async () => {
    await refillPool(deps, 'small', { ...pool, minIdle: 1 });
    const old = store.entries.get('pvep-pool-small-1');
    expect(await store.markIdle({ ...old!, vmid: 101, node: 'pve1' }, fingerprint(pool))).to.equal('idle');

    const outcome = await refillPool(deps, 'small', { ...pool, minIdle: 1, cores: 2 });
    expect(outcome.drained).to.deep.equal([{ name: 'pvep-pool-small-1', reason: 'stale-shape' }]);
    expect((await registry.get('pvep-pool-small-1'))?.state).to.equal('absent');
    expect((await queues.vm.getJobs(['waiting', 'prioritized'])).filter((job) => job.name === 'delete').map((job) => dataOf(job).name)).to.deep.equal(['pvep-pool-small-1']);
    expect(store.entries.has('pvep-pool-small-1')).to.equal(false);
    expect(outcome.created).to.deep.equal(['pvep-pool-small-2']);
    expect(dataOf(await queues.vm.getJob(`create-pvep-pool-small-2-${(await registry.get('pvep-pool-small-2'))?.generation}`)).cores).to.equal(2);
  });

  it('drains a member still creating 30 minutes on (its create or its MARK_IDLE lost) and makes another in its room', async () => {
    const added = new Date();
    await refillPool({ ...deps, now: () => added }, 'small', { ...pool, minIdle: 1, maxIdle: 1 });
    const outcome = await refillPool({ ...deps, now: () => new Date(added.getTime() + 31 * 60_000) }, 'small', { ...pool, minIdle: 1, maxIdle: 1 });
    expect(outcome.drained).to.deep.equal([{ name: 'pvep-pool-small-1', reason: 'stuck' }]);
    expect((await registry.get('pvep-pool-small-1'))?.state).to.equal('absent');
    expect(store.entries.has('pvep-pool-small-1')).to.equal(false);
    expect(outcome.created).to.deep.equal(['pvep-pool-small-2']);
  });

  it('leaves a member a claim took between the read and the drain, and a claimed member', async () => {
    await refillPool(deps, 'small', { ...pool, minIdle: 2 });
    for (const name of ['pvep-pool-small-1', 'pvep-pool-small-2']) await store.markIdle(store.entries.get(name)!, fingerprint(pool));
    store.claim('pvep-pool-small-2', 'foo 1');
    const racing: RefillDeps = { ...deps, store: Object.assign(Object.create(store) as InMemoryPoolStore, { takeForDrain: () => Promise.resolve(false) }) };
    const outcome = await refillPool(racing, 'small', { ...pool, minIdle: 0, maxIdle: 0 });
    expect(outcome.drained).to.deep.equal([]);
    expect((await registry.get('pvep-pool-small-1'))?.state).to.equal('present');
    expect((await registry.get('pvep-pool-small-2'))?.state).to.equal('present');
  });

  it('drains the idle members of a pool no longer configured, and creates none', async () => {
    await refillPool(deps, 'small', pool);
    await store.markIdle(store.entries.get('pvep-pool-small-1')!, fingerprint(pool));
    const outcomes = await refillPools(deps, []);
    expect(outcomes).to.deep.equal([{ pool: 'small', created: [], forgotten: [], drained: [{ name: 'pvep-pool-small-1', reason: 'unconfigured' }] }]);
    expect((await registry.get('pvep-pool-small-1'))?.state).to.equal('absent');
  });

  it('forgets a member whose create the door refused, and says why', async () => {
    const refusing: RefillDeps = { ...deps, writers: { ...deps.writers, door: { ...deps.writers.door, add: () => Promise.reject(new Error('address pool lan is full')) } } };
    const outcome = await refillPool(refusing, 'small', pool);
    expect(outcome).to.deep.include({ created: [], refused: 'address pool lan is full' });
    expect(store.entries.size).to.equal(0);
  });
});
