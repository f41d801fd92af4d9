// SPEC 2, 5: what the sweep asks of the job layer, on the real Redis. A
// reconciler delete records no desired state, carries the generation its
// decision was made on, and is refused when the name moved on; a missing
// VM's create is added again under a new job id.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { loadConfig } from '../../src/config/index.js';
import { limitsFromConfig, validateStoredJobData } from '../../src/job-table/schema.js';
import { createSpecFields } from '../../src/job-table/create.schema.js';
import { validateFields } from '../../src/job-table/fields.js';
import { deleteJob } from '../../jobs/delete.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { createQueues, VM_QUEUE } from '../../src/queue/queues.js';
import type { Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { pendingJobLookup, queueEnqueuer, StaleDecisionError } from '../../src/reconciler/queue-adapter.js';
import type { Enqueuer } from '../../src/reconciler/ports.js';

describe('reconciler queue adapter (SPEC 2, 5, real Redis)', () => {
  const config = loadConfig({ env: {} });
  const limits = limitsFromConfig(config);
  let prefix: string;
  let redis: Redis;
  let queues: Queues;
  let registry: DesiredStateRegistry;
  let enqueuer: Enqueuer;

  const spec = (name: string, uid: string): Record<string, unknown> => {
    const valid = validateFields<Record<string, unknown>>(createSpecFields, { name, uid }, limits);
    if (!valid.ok) throw new Error('bad spec');
    return { ...valid.value };
  };
  const present = async (name: string, uid: string): Promise<number> => {
    const outcome = await registry.recordPresent(name, uid, spec(name, uid));
    if (outcome.kind === 'conflict') throw new Error('conflict');
    return outcome.generation;
  };
  const refusal = async (p: Promise<unknown>): Promise<unknown> => p.then(() => expect.fail('expected a refusal'), (err: unknown) => err);

  beforeEach(() => {
    prefix = `pvep-test-recon-q-${randomBytes(4).toString('hex')}`;
    redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queues = createQueues(redis, prefix, config.jobs);
    registry = new DesiredStateRegistry(redis, prefix, 3600);
    enqueuer = queueEnqueuer({ jobs: jobDoor(queues, limits), registry, redis, prefix });
  });

  afterEach(async () => {
    await queues.vm.obliterate({ force: true });
    await queues.close();
    const left = await redis.keys(`${prefix}:*`);
    if (left.length > 0) await redis.del(...left);
    await redis.quit();
  });

  it('adds a delete with name, uid and the generation seen, and records no desired state', async () => {
    const generation = await present('web', 'uid-new');
    const before = await redis.hgetall(keys.desired(prefix, 'web'));
    const jobId = await enqueuer.enqueueDelete({ name: 'web', uid: 'uid-old', reason: 'orphan', seenGeneration: generation });
    const job = (await queues.vm.getJob(jobId)) as Job;
    expect(job.name).to.equal('delete');
    expect(job.data).to.deep.equal({ name: 'web', uid: 'uid-old', generation });
    expect(await redis.hgetall(keys.desired(prefix, 'web'))).to.deep.equal(before);
    expect(await redis.hget(keys.generations(prefix), 'web')).to.equal(String(generation));
    expect((await queues.vm.getJobLogs(jobId)).logs).to.deep.equal(['orphan']);
  });

  it('SPEC 32: a delete of a VM found in one of several clusters carries that cluster, which the stored delete keeps', async () => {
    const generation = await present('web', 'uid-new');
    const jobId = await enqueuer.enqueueDelete({ name: 'web', uid: 'uid-old', reason: 'orphan', seenGeneration: generation, cluster: 'dc-2' });
    const job = (await queues.vm.getJob(jobId)) as Job;
    expect(job.data).to.deep.equal({ name: 'web', uid: 'uid-old', generation, cluster: 'dc-2' });
    const stored = validateStoredJobData('delete', job.data, limits);
    expect(stored.ok && stored.value.cluster).to.equal('dc-2');
    const refused = validateStoredJobData('delete', { name: 'web', uid: 'uid-old', generation, cluster: 'DC 2' }, limits);
    expect(refused.ok ? [] : refused.errors.map((e) => e.field)).to.deep.equal(['cluster']);
  });

  it("deletes an abandoned claim's member as a caller's delete: its name recorded absent, its intent's delete job added (SPEC 30)", async () => {
    const member = 'pvep-pool-small-1';
    const generation = await present(member, 'mu1');
    // What the claim's accept writes on the member's record (the door's script): a claimer, foo, since gone.
    await redis.hset(keys.desired(prefix, member), 'claimedBy', 'foo fu1');
    const jobId = await enqueuer.enqueueDelete({ name: member, uid: 'mu1', reason: 'orphan (abandoned claim)', seenGeneration: generation, nameGoes: true });
    expect((await registry.get(member))?.state).to.equal('absent');
    const job = (await queues.vm.getJob(jobId)) as Job;
    expect(job.data).to.deep.equal({ name: member, uid: 'mu1', generation: generation + 1 });
  });

  it("refuses an abandoned claim's delete when the claimer is present with the claiming uid after all (SPEC 30)", async () => {
    const member = 'pvep-pool-small-2';
    const generation = await present(member, 'mu2');
    await present('bar', 'bu1');
    await redis.hset(keys.desired(prefix, member), 'claimedBy', 'bar bu1');
    const err = await refusal(enqueuer.enqueueDelete({ name: member, uid: 'mu2', reason: 'orphan', seenGeneration: generation, nameGoes: true }));
    expect(err).to.be.instanceOf(StaleDecisionError);
    expect((await registry.get(member))?.state).to.equal('present');
  });

  it('refuses a delete when the name moved on since the sweep read it', async () => {
    const seen = await present('web', 'uid-a');
    await registry.recordAbsent('web', undefined);
    expect(await refusal(enqueuer.enqueueDelete({ name: 'web', uid: 'uid-a', reason: 'orphan', seenGeneration: seen }))).to.be.instanceOf(StaleDecisionError);
    expect(await queues.vm.getJobCounts('waiting')).to.deep.equal({ waiting: 0 });
  });

  it('refuses a delete of a uid the name is now desired with', async () => {
    const generation = await present('web', 'uid-a');
    expect(await refusal(enqueuer.enqueueDelete({ name: 'web', uid: 'uid-a', reason: 'orphan', seenGeneration: generation }))).to.be.instanceOf(StaleDecisionError);
    expect(await queues.vm.getJobCounts('waiting')).to.deep.equal({ waiting: 0 });
  });

  it('leaves the delete it added to be superseded when the name is created again with that uid (jobs/delete.ts)', async () => {
    await present('web', 'uid-a');
    const seen = (await registry.recordAbsent('web', undefined)).generation;
    const jobId = await enqueuer.enqueueDelete({ name: 'web', uid: 'uid-a', reason: 'orphan', seenGeneration: seen });
    await present('web', 'uid-a');
    const job = (await queues.vm.getJob(jobId)) as Job;
    expect(deleteJob.superseded?.(job.data, await registry.get('web'))).to.equal(true);
  });

  it("adds a missing VM's create again under a new id, even when its first create is kept as completed", async () => {
    const generation = await present('db', 'uid-db');
    const record = await registry.get('db');
    await queues.vm.add('create', { ...record?.spec, generation }, { jobId: record?.jobId ?? '' });
    const worker = new Worker(VM_QUEUE, () => Promise.resolve('done'), { connection: redis.duplicate(), prefix });
    try {
      while ((await queues.vm.getJobCounts('completed')).completed === 0) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.close();
    }
    const jobId = await enqueuer.enqueueCreate({ name: 'db', generation });
    expect(jobId).to.not.equal(record?.jobId);
    const job = (await queues.vm.getJob(jobId)) as Job;
    expect(job.name).to.equal('create');
    expect(job.data).to.deep.include({ name: 'db', uid: 'uid-db', generation });
  });

  it("a missing VM's create added again carries the name's address lease, so its VM gets the same address (SPEC 29)", async () => {
    const pool = { name: 'lan', bridge: 'vmbr1', cidr: '127.77.0.0/24', dns: [], exclude: [], reuseCooldownSeconds: 600 };
    const outcome = await registry.recordPresent('db', 'uid-db', spec('db', 'uid-db'), { pool });
    if (outcome.kind === 'conflict') throw new Error('conflict');
    const jobId = await enqueuer.enqueueCreate({ name: 'db', generation: outcome.generation });
    const job = (await queues.vm.getJob(jobId)) as Job;
    expect(job.data).to.deep.include({ address: outcome.address });
    expect(outcome.address).to.include({ pool: 'lan', address: '127.77.0.1', uid: 'uid-db' });
  });

  it('refuses to add a create for a name deleted, or deleted and created again, since the sweep read it', async () => {
    const generation = await present('db', 'uid-db');
    await registry.recordAbsent('db', undefined);
    expect(await refusal(enqueuer.enqueueCreate({ name: 'db', generation }))).to.be.instanceOf(StaleDecisionError);
    await present('db', 'uid-2');
    expect(await refusal(enqueuer.enqueueCreate({ name: 'db', generation }))).to.be.instanceOf(StaleDecisionError);
    expect(await queues.vm.getJobCounts('waiting')).to.deep.equal({ waiting: 0 });
  });

  it('refuses to add a create for a name whose create failed Permanent since the sweep read it (SPEC 2)', async () => {
    const generation = await present('db', 'uid-db');
    expect(await registry.recordFailure('db', { reason: 'bad template', jobId: 'create-db-1', generation, at: new Date().toISOString() })).to.equal(true);
    expect(await refusal(enqueuer.enqueueCreate({ name: 'db', generation }))).to.be.instanceOf(StaleDecisionError);
    expect(await queues.vm.getJobCounts('waiting')).to.deep.equal({ waiting: 0 });
  });

  it("sees a name's current job and the reconciler's own job while they wait, never once finished", async () => {
    const lookup = pendingJobLookup({ vmQueue: queues.vm, registry, redis, prefix });
    // a: its create (the registry's job) waits; b: the reconciler's delete waits; c: only a check job.
    await present('a', 'uid-a');
    const a = await registry.get('a');
    await queues.vm.add('create', { ...a?.spec, generation: a?.generation }, { jobId: a?.jobId ?? '' });
    const bGeneration = await present('b', 'uid-b');
    await enqueuer.enqueueDelete({ name: 'b', uid: 'uid-old', reason: 'orphan', seenGeneration: bGeneration });
    await queues.vm.add('check', { name: 'c' });
    expect(await Promise.all(['a', 'b', 'c', 'never'].map((n) => lookup.hasPendingJob(n)))).to.deep.equal([true, true, false, false]);

    const worker = new Worker(VM_QUEUE, () => Promise.resolve('done'), { connection: redis.duplicate(), prefix });
    try {
      while (((await queues.vm.getJobCounts('completed')).completed ?? 0) < 3) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.close();
    }
    expect(await Promise.all(['a', 'b'].map((n) => lookup.hasPendingJob(n)))).to.deep.equal([false, false]);
  });
});
