// The processor's way through one locked job (SPEC 2, 3, 21): the lock and
// the name's record come in one Redis call, the last-known state and the
// release go out in one, and every path keeps what SPEC 2 and 3 promise.
// The processor is called directly with jobs the producer enqueued, on a
// Redis connection that counts what the processor sends.
import { DelayedError } from 'bullmq';
import type { Job } from 'bullmq';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import sinon from 'sinon';
import { buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import { createJob } from '../../jobs/create.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import type { AnyJobDefinition } from '../../jobs/types.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { createProcessor } from '../../src/worker/processor.js';
import type { JobProcessor } from '../../src/worker/processor.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { testJobDeps } from '../support/processor-deps.js';
import { countingRedis } from '../support/redis.js';

interface World {
  processor: JobProcessor;
  locks: NameLocks;
  registry: DesiredStateRegistry;
  /** Names of the commands the processor's connection sent. */
  sent: string[];
}

/** The job definitions with a create that runs until its signal aborts, calling `began` once it has started. */
function untilAborted(began: () => void): AnyJobDefinition[] {
  const waiting: AnyJobDefinition = {
    ...createJob,
    handler: (_data, _deps, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
        began();
      }),
  };
  return [waiting, ...jobDefinitions.filter((d) => d.name !== 'create')];
}

describe('processor: lock, record and last-known state in two Redis calls (SPEC 2, 3, 21)', function () {
  let h: Harness;
  let counted: Redis | undefined;

  afterEach(async () => {
    sinon.restore();
    counted?.disconnect();
    counted = undefined;
    await h.close();
  });

  async function world(definitions: readonly AnyJobDefinition[] = jobDefinitions): Promise<World> {
    const { redis, sent } = await countingRedis();
    counted = redis;
    const locks = new NameLocks(redis, h.prefix);
    const registry = new DesiredStateRegistry(redis, h.prefix, 60);
    const deps = testJobDeps(h.provider, registry, locks);
    const processor = createProcessor({ definitions: buildJobRegistry(definitions), deps, limits: limitsFromConfig(h.config), registry, locks, lockTtlMs: 5000 });
    return { processor, locks, registry, sent };
  }

  async function queued(jobId: string): Promise<Job> {
    const job = await h.queues.vm.getJob(jobId);
    if (!job) throw new Error(`job ${jobId} is missing`);
    return job;
  }

  it('a create job sends two calls of its own: the lock with the record, then the last-known state with the release', async () => {
    h = createHarness('proc-trips');
    const w = await world();
    // The first job loads the scripts into Redis; the second is counted.
    await w.processor(await queued((await h.client.createVm({ name: 'warm', uid: 'u0' })).jobId), 'token');
    const job = await queued((await h.client.createVm({ name: 'trips', uid: 'u1' })).jobId);
    w.sent.length = 0;
    const result = await w.processor(job, 'token');
    expect(result).to.include({ uid: 'u1', state: 'Running' });
    expect(w.sent).to.deep.equal(['evalsha', 'evalsha']);
    expect((await w.registry.get('trips'))?.lastKnown).to.include({ state: 'Running', address: '192.0.2.10' });
    expect(await w.locks.isHeld('trips')).to.equal(false);
  });

  it('jobs that run together send their calls together: two jobs, two round trips', async () => {
    h = createHarness('proc-together');
    const quick: AnyJobDefinition = { ...createJob, handler: () => Promise.resolve({ done: true }) };
    const w = await world([quick, ...jobDefinitions.filter((d) => d.name !== 'create')]);
    await w.processor(await queued((await h.client.createVm({ name: 'warm', uid: 'u0' })).jobId), 'token');
    const jobs = await Promise.all(['t1', 't2'].map(async (name) => queued((await h.client.createVm({ name, uid: `u-${name}` })).jobId)));
    w.sent.length = 0;
    const results = await Promise.all(jobs.map((job) => w.processor(job, 'token')));
    expect(results).to.deep.equal([{ done: true }, { done: true }]);
    expect(w.sent).to.deep.equal(['evalsha', 'evalsha']);
    expect(await Promise.all(['t1', 't2'].map((name) => w.locks.isHeld(name)))).to.deep.equal([false, false]);
  });

  it('a job of an older generation ends superseded in one call, without taking the lock or calling the provider', async () => {
    h = createHarness('proc-older');
    const w = await world();
    const first = await h.client.createVm({ name: 'old', uid: 'u1' });
    await h.client.deleteVm({ name: 'old' });
    const job = await queued(first.jobId);
    w.sent.length = 0;
    const result = await w.processor(job, 'token');
    expect(result).to.deep.equal({ superseded: true, generation: 1, currentGeneration: 2 });
    expect(w.sent.filter((c) => c !== 'eval')).to.deep.equal(['evalsha']);
    expect(await w.locks.isHeld('old')).to.equal(false);
    expect(await h.provider.calls()).to.deep.equal([]);
  });

  it('a job that finds the name held is moved back to delayed, unless the record makes it moot', async () => {
    h = createHarness('proc-held');
    const w = await world();
    const made = await h.client.createVm({ name: 'busy', uid: 'u1' });
    const other = (await w.locks.tryAcquire('busy', 60_000)) ?? '';
    const job = await queued(made.jobId);
    const moved = sinon.stub(job, 'moveToDelayed').resolves();
    let thrown: unknown;
    await w.processor(job, 'token').catch((err: unknown) => (thrown = err));
    expect(thrown).to.be.instanceOf(DelayedError);
    expect(moved.calledOnce).to.equal(true);
    expect(await h.redis.get(`${h.prefix}:lock:busy`)).to.equal(other, 'the holder keeps its lock');

    // The newest intent is now a delete: while the lock is still held, the create is moot.
    await h.client.deleteVm({ name: 'busy' });
    const result = await w.processor(job, 'token');
    expect(result).to.deep.equal({ superseded: true, generation: 1, currentGeneration: 2 });
    expect(moved.calledOnce).to.equal(true, 'not delayed again');
  });

  it('a delete of a foreign uid with an older generation is not moot: it takes the lock and runs, and leaves lastKnown alone', async () => {
    h = createHarness('proc-foreign');
    const w = await world();
    await h.client.createVm({ name: 'shared', uid: 'u1' });
    const foreign = await h.client.deleteVm({ name: 'shared', uid: 'u-orphan' });
    await h.client.deleteVm({ name: 'shared' });
    await h.client.createVm({ name: 'shared', uid: 'u1' });
    expect((await w.registry.get('shared'))?.generation).to.equal(3);
    const result = await w.processor(await queued(foreign.jobId), 'token');
    expect(result).to.deep.equal({ deleted: false, seedsDeleted: 0 });
    expect((await h.provider.calls()).map((c) => `${c.op} ${c.uid ?? ''}`)).to.deep.equal(['delete u-orphan']);
    expect((await w.registry.get('shared'))?.lastKnown).to.equal(undefined, 'a delete writes NotFound only while the name is desired absent');
    expect(await w.locks.isHeld('shared')).to.equal(false);
  });

  it('the last-known state a handler set is written and the lock released also when the handler then throws', async () => {
    h = createHarness('proc-throws');
    const throwing: AnyJobDefinition = {
      ...createJob,
      handler: (data, _deps, ctx) => {
        ctx.setLastKnown((data as { name: string }).name, { state: 'Stopped', at: 'then' });
        return Promise.reject(new Error('failed after looking'));
      },
    };
    const w = await world([throwing, ...jobDefinitions.filter((d) => d.name !== 'create')]);
    const job = await queued((await h.client.createVm({ name: 'thrower', uid: 'u1' })).jobId);
    let thrown: unknown;
    await w.processor(job, 'token').catch((err: unknown) => (thrown = err));
    expect(String(thrown)).to.match(/failed after looking/);
    expect((await w.registry.get('thrower'))?.lastKnown).to.deep.equal({ state: 'Stopped', at: 'then' });
    expect(await w.locks.isHeld('thrower')).to.equal(false);
  });

  it('a last-known write that fails fails the attempt, as it did when the handler wrote it', async () => {
    h = createHarness('proc-write-fails');
    const w = await world();
    const job = await queued((await h.client.createVm({ name: 'unwritten', uid: 'u1' })).jobId);
    sinon.stub(w.locks, 'releaseWriting').rejects(new Error('Connection is closed.'));
    let thrown: unknown;
    await w.processor(job, 'token').catch((err: unknown) => (thrown = err));
    expect(String(thrown)).to.match(/Connection is closed/);
  });

  it('the handler sees one signal, aborted when the worker cancels the job; BullMQ is not asked to make one (SPEC 3)', async () => {
    h = createHarness('proc-cancel');
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const w = await world(untilAborted(() => started()));
    // BullMQ makes an AbortController per job only for a processor taking a third parameter.
    expect(w.processor.length).to.be.below(3);
    const job = await queued((await h.client.createVm({ name: 'sig', uid: 'u1' })).jobId);
    const outcome = w.processor(job, 'token').catch((err: unknown) => err);
    await running;
    expect(w.processor.cancel('another-job', 'no')).to.equal(false);
    expect(w.processor.cancel(job.id ?? '', 'lost the job lock')).to.equal(true);
    expect(String(await outcome)).to.match(/lost the job lock/);
    expect(await w.locks.isHeld('sig')).to.equal(false, 'the cancelled job released its name');
    expect(w.processor.cancel(job.id ?? '', 'again')).to.equal(false, 'a finished job is not running any more');
  });

  it('cancelAll aborts every job the processor runs (shutdown past its grace period, SPEC 1)', async () => {
    h = createHarness('proc-cancel-all');
    let count = 0;
    let bothStarted: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (bothStarted = resolve));
    const w = await world(untilAborted(() => {
      if ((count += 1) === 2) bothStarted();
    }));
    const jobs = await Promise.all(['c1', 'c2'].map(async (name) => queued((await h.client.createVm({ name, uid: `u-${name}` })).jobId)));
    const outcomes = jobs.map((job) => w.processor(job, 'token').catch((err: unknown) => String(err)));
    await running;
    w.processor.cancelAll('worker shutting down');
    expect(await Promise.all(outcomes)).to.deep.equal(['Error: worker shutting down', 'Error: worker shutting down']);
  });
});
