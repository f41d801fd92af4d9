// SPEC 1, 2, 3, 4: the processor's other paths, called directly with jobs
// in a real queue: a job with no handler or bad data fails at once with
// its reason, progress and log lines reach the job, results and log lines
// are redacted, a Permanent create failure is recorded on its name, each
// outcome is counted once, and last-known states of other names are
// written (issue 19).
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { expect } from 'chai';
import sinon from 'sinon';
import { buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import { checkJob } from '../../jobs/check.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import type { AnyJobDefinition } from '../../jobs/types.js';
import { PermanentError, TransientError } from '../../src/errors.js';
import type { JobMetrics } from '../../src/metrics.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { createProcessor } from '../../src/worker/processor.js';
import type { JobProcessor } from '../../src/worker/processor.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { testJobDeps, withCreate } from '../support/processor-deps.js';
import { rejection } from '../support/rejection.js';

interface World {
  processor: JobProcessor;
  locks: NameLocks;
  registry: DesiredStateRegistry;
  finished: [string, string][];
  /** The duration each finished job was counted with, in seconds. */
  seconds: number[];
  waited: string[];
}

describe('processor: the other paths (SPEC 1, 2, 3, 4)', function () {
  let h: Harness;

  afterEach(async () => {
    sinon.restore();
    await h.close();
  });

  function world(definitions: readonly AnyJobDefinition[] = jobDefinitions): World {
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const deps = testJobDeps(h.provider, registry, locks);
    const finished: [string, string][] = [];
    const seconds: number[] = [];
    const waited: string[] = [];
    const metrics = {
      jobFinished: (job: string, outcome: string, took: number) => {
        finished.push([job, outcome]);
        seconds.push(took);
      },
      lockWaited: (job: string) => void waited.push(job),
    } as unknown as JobMetrics;
    const processor = createProcessor({ definitions: buildJobRegistry(definitions), deps, limits: limitsFromConfig(h.config), registry, locks, lockTtlMs: 5000, metrics });
    return { processor, locks, registry, finished, seconds, waited };
  }

  async function queued(jobId: string): Promise<Job> {
    const job = await h.queues.vm.getJob(jobId);
    if (!job) throw new Error(`job ${jobId} is missing`);
    return job;
  }

  async function logsOf(job: Job): Promise<string[]> {
    return (await h.queues.vm.getJobLogs(job.id ?? '')).logs;
  }

  it('a job with no handler fails at once, naming the job', async () => {
    h = createHarness('paths-nohandler');
    const w = world();
    const job = await h.queues.vm.add('nosuch', { name: 'x' });
    const err = await rejection(w.processor(job, 'token'));
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect(err.message).to.equal('no handler for job "nosuch"');
  });

  it('bad data fails at once, naming every failing field', async () => {
    h = createHarness('paths-baddata');
    const w = world();
    const job = await h.queues.vm.add('create', { cores: 0 });
    const err = await rejection(w.processor(job, 'token'));
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect(err.message).to.match(/^bad job data: name is required; /);
    expect(err.message).to.contain('cores must be from 1 to');
    expect(err.message).to.contain('; ');
  });

  it("a step reaches the job's progress (a number), its data and its log, a line is redacted, and ctx carries the job's id", async () => {
    h = createHarness('paths-progress');
    let seenId = '';
    const w = world(
      withCreate(async (_data, _deps, ctx) => {
        seenId = ctx.jobId;
        await ctx.progress?.('cloned');
        await ctx.log?.('token PVEAPIToken=root@pam!ci=0123456789abcdef used');
        return { done: true };
      }),
    );
    const job = await queued((await h.client.createVm({ name: 'prog', uid: 'u1' })).jobId);
    expect(await w.processor(job, 'token')).to.deep.equal({ done: true });
    expect(seenId).to.equal(job.id);
    const stored = await queued(job.id ?? '');
    // The first of seven steps (waitForAddress is the default): a number for Bull Board's bar, the step in the data.
    expect(stored.progress).to.equal(14);
    expect((stored.data as { step?: unknown }).step).to.equal('cloned');
    expect((await h.client.getJob(job.id ?? ''))?.step).to.equal('cloned');
    expect(await logsOf(job)).to.deep.equal(['step: cloned', 'token PVEAPIToken=[REDACTED] used']);
    expect(w.finished).to.deep.equal([['create', 'completed']]);
  });

  it('a result with a secret in it is redacted; one without is returned as it is', async () => {
    h = createHarness('paths-result');
    const plain = { address: '192.0.2.1', nested: { ok: true } };
    let result: unknown = plain;
    const w = world(withCreate(() => Promise.resolve(result)));
    const first = await queued((await h.client.createVm({ name: 'res-1', uid: 'u1' })).jobId);
    expect(await w.processor(first, 'token')).to.equal(plain);
    result = { note: 'Authorization: PVEAPIToken=root@pam!ci=0123456789abcdef' };
    const second = await queued((await h.client.createVm({ name: 'res-2', uid: 'u2' })).jobId);
    expect(await w.processor(second, 'token')).to.deep.equal({ note: 'Authorization: PVEAPIToken=[REDACTED]' });
    result = undefined;
    const third = await queued((await h.client.createVm({ name: 'res-3', uid: 'u3' })).jobId);
    expect(await w.processor(third, 'token')).to.equal(undefined);
  });

  it('a Permanent create failure is logged, recorded on its name and counted failed; a Transient one retried', async () => {
    h = createHarness('paths-permanent');
    let fail: Error = new PermanentError('template 9001 is not a template', { reason: 'bad template 9001' });
    const w = world(withCreate(() => Promise.reject(fail)));
    const job = await queued((await h.client.createVm({ name: 'perm', uid: 'u1' })).jobId);
    const err = await rejection(w.processor(job, 'token'));
    expect(err).to.be.instanceOf(UnrecoverableError);
    expect(await logsOf(job)).to.deep.equal([`attempt 1 failed: ${err.message}`]);
    const failed = (await w.registry.get('perm'))?.failed;
    expect(failed).to.deep.include({ reason: err.message, jobId: job.id, generation: 1 });
    expect(Date.parse(failed?.at ?? '')).to.be.closeTo(Date.now(), 60_000);
    expect(w.finished).to.deep.equal([['create', 'failed']]);

    fail = new TransientError('Proxmox is busy');
    const again = await queued((await h.client.createVm({ name: 'trans', uid: 'u2' })).jobId);
    expect(again.opts.attempts).to.be.above(1);
    await rejection(w.processor(again, 'token'));
    expect((await w.registry.get('trans'))?.failed).to.equal(undefined);
    expect(w.finished).to.deep.equal([['create', 'failed'], ['create', 'retried']]);
  });

  it("a job whose attempts are spent is counted failed", async () => {
    h = createHarness('paths-spent');
    const w = world(withCreate(() => Promise.reject(new TransientError('busy'))));
    const job = await queued((await h.client.createVm({ name: 'spent', uid: 'u1' })).jobId);
    job.attemptsMade = (job.opts.attempts ?? 1) - 1;
    await rejection(w.processor(job, 'token'));
    expect(w.finished).to.deep.equal([['create', 'failed']]);
  });

  it("a job's duration is counted in seconds", async () => {
    h = createHarness('paths-duration');
    const w = world(withCreate(() => new Promise((resolve) => setTimeout(() => resolve({}), 120))));
    await w.processor(await queued((await h.client.createVm({ name: 'timed', uid: 'u1' })).jobId), 'token');
    expect(w.seconds).to.have.length(1);
    expect(w.seconds[0]).to.be.within(0.1, 10);
  });

  it('a job that finds its name held is delayed into the future by the lock wait, not the past', async () => {
    h = createHarness('paths-delay');
    const w = world();
    const made = await h.client.createVm({ name: 'later', uid: 'u1' });
    await w.locks.tryAcquire('later', 60_000);
    const job = await queued(made.jobId);
    const moved = sinon.stub(job, 'moveToDelayed').resolves();
    const before = Date.now();
    await rejection(w.processor(job, 'token'));
    const [until, token] = moved.firstCall.args;
    expect(until).to.be.above(before);
    expect(until).to.be.at.most(Date.now() + 5000);
    expect(token).to.equal('token');
  });

  it('a record read with the lock that makes the job moot ends it superseded, releasing the lock, without the handler', async () => {
    h = createHarness('paths-late');
    let ran = false;
    const w = world(
      withCreate(() => {
        ran = true;
        return Promise.resolve({});
      }),
    );
    const made = await h.client.createVm({ name: 'late', uid: 'u1' });
    const take = w.locks.tryAcquireReading.bind(w.locks);
    // The lock is really taken, and the record shows a newer intent (one that came in a race the script cannot see).
    sinon.stub(w.locks, 'tryAcquireReading').callsFake(async (name: string, ttlMs: number) => {
      const claim = await take(name, ttlMs);
      return { ...claim, record: { name, state: 'absent' as const, generation: 9 } };
    });
    const result = await w.processor(await queued(made.jobId), 'token');
    expect(result).to.deep.equal({ superseded: true, generation: 1, currentGeneration: 9 });
    expect(ran).to.equal(false);
    expect(await w.locks.isHeld('late')).to.equal(false, 'the lock taken is released');
    expect(w.finished).to.deep.equal([['create', 'superseded']]);
  });

  it('a superseded job is counted superseded; a held name counts a lock wait', async () => {
    h = createHarness('paths-counted');
    const w = world();
    const first = await h.client.createVm({ name: 'sup', uid: 'u1' });
    await h.client.deleteVm({ name: 'sup' });
    await w.processor(await queued(first.jobId), 'token');
    expect(w.finished).to.deep.equal([['create', 'superseded']]);
    const made = await h.client.createVm({ name: 'held', uid: 'u1' });
    await w.locks.tryAcquire('held', 60_000);
    const job = await queued(made.jobId);
    sinon.stub(job, 'moveToDelayed').resolves();
    await rejection(w.processor(job, 'token'));
    expect(w.waited).to.deep.equal(['create']);
    expect(w.finished).to.deep.equal([['create', 'superseded']]);
  });

  it('a job that takes no lock writes the last-known states it set, with their ifState', async () => {
    h = createHarness('paths-lastknown');
    const check: AnyJobDefinition = {
      ...checkJob,
      handler: (_data, _deps, ctx) => {
        ctx.setLastKnown('seen-1', { state: 'Running', at: 'then' }, 'present');
        ctx.setLastKnown('seen-2', { state: 'Stopped', at: 'then' });
        return Promise.resolve({ ok: true });
      },
    };
    const w = world([check, ...jobDefinitions.filter((d) => d.name !== 'check')]);
    await h.client.createVm({ name: 'seen-1', uid: 'u1' });
    await h.client.createVm({ name: 'seen-2', uid: 'u2' });
    const written = sinon.spy(w.registry, 'recordLastKnown');
    const job = await queued((await h.client.checkVm({ name: 'seen-1' })).jobId);
    expect(await w.processor(job, 'token')).to.deep.equal({ ok: true });
    expect(written.args).to.deep.equal([
      ['seen-1', { state: 'Running', at: 'then' }, 'present'],
      ['seen-2', { state: 'Stopped', at: 'then' }, undefined],
    ]);
  });

  it('counts the jobs it runs, and none once they end', async () => {
    h = createHarness('paths-count');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let began: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (began = resolve));
    const w = world(
      withCreate(async () => {
        began();
        await gate;
        return {};
      }),
    );
    expect(w.processor.runningCount()).to.equal(0);
    const job = await queued((await h.client.createVm({ name: 'count', uid: 'u1' })).jobId);
    const done = w.processor(job, 'token');
    await running;
    expect(w.processor.runningCount()).to.equal(1);
    release();
    await done;
    expect(w.processor.runningCount()).to.equal(0);
  });

  it('beforeWrite throws once the job is cancelled, so no Proxmox write follows', async () => {
    h = createHarness('paths-beforewrite');
    let began: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (began = resolve));
    let proceed: () => void = () => undefined;
    const cancelled = new Promise<void>((resolve) => (proceed = resolve));
    const w = world(
      withCreate(async (_data, _deps, ctx) => {
        ctx.beforeWrite?.();
        began();
        await cancelled;
        ctx.beforeWrite?.();
        return { wrote: true };
      }),
    );
    const job = await queued((await h.client.createVm({ name: 'bw', uid: 'u1' })).jobId);
    const outcome = w.processor(job, 'token').catch((err: unknown) => err);
    await running;
    w.processor.cancel(job.id ?? '', 'job cancelled by test');
    proceed();
    expect(String(await outcome)).to.contain('job cancelled by test');
  });
});
