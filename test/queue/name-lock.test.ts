// SPEC 3: the per-name lock's token makes renew and release safe, and a
// holder that loses its lock stops before its next Proxmox write.
import { expect } from 'chai';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../src/redis-script.js';
import { NameLocks, holdLock } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { LuaScript } from '../../src/redis-script.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { CREATE_STEPS } from '../support/recording-provider.js';
import { eventually } from '../support/redis.js';
import { scaledByLoad } from '../support/machine.js';

describe('per-name lock (SPEC 3)', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('only the token holder renews or releases; a second taker is refused', async () => {
    h = createHarness('lock');
    const locks = new NameLocks(h.redis, h.prefix);
    const token = await locks.tryAcquire('n1', 5000);
    expect(token).to.be.a('string');
    expect(await locks.tryAcquire('n1', 5000)).to.equal(undefined);
    expect(await locks.renew('n1', 'not-the-token', 5000)).to.equal(false);
    expect(await locks.release('n1', 'not-the-token')).to.equal(false);
    expect(await locks.isHeld('n1')).to.equal(true);
    expect(await locks.release('n1', token ?? '')).to.equal(true);
    expect(await locks.isHeld('n1')).to.equal(false);
  });

  it('tryHold runs its function holding the name, refuses a second holder, and releases after a throw too (SPEC 3, 5)', async () => {
    h = createHarness('lock-hold');
    const locks = new NameLocks(h.redis, h.prefix);
    const outcome = await locks.tryHold('s1', 5000, async (lost) => {
      expect(await locks.isHeld('s1')).to.equal(true);
      expect(await locks.tryHold('s1', 5000, () => Promise.resolve('second'))).to.deep.equal({ ran: false });
      return lost.aborted ? 'lost' : 'held';
    });
    expect(outcome).to.deep.equal({ ran: true, value: 'held' });
    expect(await locks.isHeld('s1')).to.equal(false);
    const failing = await locks.tryHold('s1', 5000, () => Promise.reject(new Error('seed delete failed'))).catch((err: unknown) => err);
    expect(failing).to.be.instanceOf(Error);
    expect(await locks.isHeld('s1')).to.equal(false);
  });

  it('takes the lock and reads the record in one call; leaves the lock alone for an older generation (SPEC 2, 3, 21)', async () => {
    h = createHarness('lock-read');
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const none = await locks.tryAcquireReading('r0', 5000, 1);
    expect(none).to.include({ outcome: 'taken', record: undefined });

    await registry.recordPresent('r1', 'u1', { name: 'r1', uid: 'u1' });
    await registry.recordAbsent('r1', undefined);
    const older = await locks.tryAcquireReading('r1', 5000, 1);
    expect(older.outcome).to.equal('older');
    expect(older.record).to.include({ state: 'absent', generation: 2 });
    expect(await locks.isHeld('r1')).to.equal(false, 'an older generation does not take the lock');

    const taken = await locks.tryAcquireReading('r1', 5000, 2);
    if (taken.outcome !== 'taken') throw new Error(`expected taken, got ${taken.outcome}`);
    expect(taken.record).to.deep.equal({ name: 'r1', state: 'absent', uid: 'u1', generation: 2 }, 'the head superseded() looks at, nothing more');
    expect(await h.redis.get(`${h.prefix}:lock:r1`)).to.equal(taken.token);
    const held = await locks.tryAcquireReading('r1', 5000, 2);
    expect(held.outcome).to.equal('held');
    expect(held.record).to.include({ generation: 2 });
    expect(await locks.release('r1', taken.token)).to.equal(true);

    const anyGeneration = await locks.tryAcquireReading('r1', 5000);
    expect(anyGeneration.outcome).to.equal('taken', 'without a generation the lock is taken whatever the record says');
  });

  it('claim answers a held lock, not its token: its release frees the name, and a name held or newer is not taken (SPEC 2, 3)', async () => {
    h = createHarness('lock-claim');
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await registry.recordPresent('c1', 'u1', { name: 'c1', uid: 'u1' });
    const job = new AbortController();
    const taken = await locks.claim('c1', 5000, 1, job);
    if (taken.outcome !== 'taken') throw new Error(`expected taken, got ${taken.outcome}`);
    expect(Object.keys(taken).sort()).to.deep.equal(['held', 'outcome', 'record']);
    expect(taken.record).to.include({ state: 'present', generation: 1 });
    expect((await locks.claim('c1', 5000, 1, new AbortController())).outcome).to.equal('held');
    await taken.held.release();
    expect(await locks.isHeld('c1')).to.equal(false, 'the held lock releases with the token it keeps');
    expect(job.signal.aborted).to.equal(false);

    await registry.recordAbsent('c1', undefined);
    expect((await locks.claim('c1', 5000, 1, new AbortController())).outcome).to.equal('older');
    expect(await locks.isHeld('c1')).to.equal(false);
  });

  it('claim keeps the lock it took renewed, and its loss aborts the job\'s one signal, so its Proxmox calls stop at once (SPEC 3)', async () => {
    h = createHarness('lock-claim-lost');
    const locks = new NameLocks(h.redis, h.prefix);
    const job = new AbortController();
    const taken = await locks.claim('c2', 300, undefined, job);
    if (taken.outcome !== 'taken') throw new Error(`expected taken, got ${taken.outcome}`);
    expect(taken.held.lost).to.equal(job.signal);
    await h.redis.set(`${h.prefix}:lock:c2`, 'someone-else');
    await eventually(() => Promise.resolve(job.signal.aborted ? true : undefined), 2000);
    expect(String(job.signal.reason)).to.match(/lost the lock of c2/);
    await taken.held.release();
    expect(await h.redis.get(`${h.prefix}:lock:c2`)).to.equal('someone-else', 'release never frees another holder');
  });

  it('writes the last-known state and releases in one call, only into a record in the state asked (SPEC 2, 3, 21)', async () => {
    h = createHarness('lock-write');
    const locks = new NameLocks(h.redis, h.prefix);
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await registry.recordPresent('w1', 'u1', { name: 'w1', uid: 'u1' });
    const at = new Date().toISOString();

    const token = (await locks.tryAcquire('w1', 5000)) ?? '';
    expect(await locks.releaseWriting('w1', token, { lastKnown: { state: 'NotFound', at }, ifState: 'absent' })).to.equal(true);
    expect((await registry.get('w1'))?.lastKnown).to.equal(undefined, 'not written: the name is desired present');
    expect(await locks.isHeld('w1')).to.equal(false);

    const second = (await locks.tryAcquire('w1', 5000)) ?? '';
    await h.redis.set(`${h.prefix}:lock:w1`, 'someone-else');
    expect(await locks.releaseWriting('w1', second, { lastKnown: { state: 'Running', vmid: 101, at } })).to.equal(false);
    expect((await registry.get('w1'))?.lastKnown).to.deep.equal({ state: 'Running', vmid: 101, at }, 'written as a separate write would be');
    expect(await h.redis.get(`${h.prefix}:lock:w1`)).to.equal('someone-else', 'never frees another holder');

    const third = (await locks.tryAcquire('w2', 5000)) ?? '';
    expect(await locks.releaseWriting('w2', third, { lastKnown: { state: 'Running', at } })).to.equal(true);
    expect(await h.redis.exists(`${h.prefix}:desired:w2`)).to.equal(0, 'no record is made for a name without one');
  });

  it('a script Redis does not know yet is sent once by its source, then run by its SHA1', async () => {
    h = createHarness('lua');
    const script = new LuaScript(`return '${h.prefix}'`);
    // On a Cluster (npm run test:cluster) a script without keys runs on any master: ask each.
    const known = async (redis: RedisClient): Promise<number[]> => {
      await redis.ping(); // a Cluster knows its masters once connected
      const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
      const answers = (await Promise.all(servers.map((server) => server.script('EXISTS', script.sha)))) as number[][];
      return [Math.max(...answers.map((answer) => answer[0] ?? 0))];
    };
    expect(await known(h.redis)).to.deep.equal([0]);
    expect(await script.run(h.redis, [], [])).to.equal(h.prefix);
    expect(await known(h.redis)).to.deep.equal([1]);
    expect(await script.run(h.redis, [], [])).to.equal(h.prefix);
  });

  it('a held lock is renewed past its TTL, and reports loss when taken over', async () => {
    h = createHarness('lock-hold');
    const locks = new NameLocks(h.redis, h.prefix);
    // A TTL the machine's load can stall a renewal past would let the lock expire: it follows the load.
    const ttlMs = scaledByLoad(300);
    let renewed = 0;
    const renew = locks.renew.bind(locks);
    locks.renew = async (...args) => {
      const kept = await renew(...args);
      if (kept) renewed++;
      return kept;
    };
    const since = Date.now();
    const token = (await locks.tryAcquire('n2', ttlMs)) ?? '';
    const held = holdLock(locks, 'n2', token, ttlMs);
    // Renewals, not a fixed sleep: past two TTLs, with several renewals made.
    await eventually(() => Promise.resolve(renewed >= 3 && Date.now() - since > 2 * ttlMs ? true : undefined), 12_000);
    expect(await locks.isHeld('n2')).to.equal(true, 'renewed beyond its TTL');
    expect(held.lost.aborted).to.equal(false);
    await h.redis.set(`${h.prefix}:lock:n2`, 'someone-else');
    // Its next renewal (every third of the TTL, which follows the load) finds the other token.
    await eventually(() => Promise.resolve(held.lost.aborted ? true : undefined), 12_000);
    expect(() => held.check()).to.throw(/lost the lock of n2/);
    await held.release();
    expect(await h.redis.get(`${h.prefix}:lock:n2`)).to.equal('someone-else', 'release never frees another holder');
  });

  it('a lock held for a job aborts the job\'s controller when lost; the job\'s own abort is not a lost lock', async () => {
    h = createHarness('lock-controller');
    const locks = new NameLocks(h.redis, h.prefix);
    const cancelled = new AbortController();
    const first = holdLock(locks, 'n3', (await locks.tryAcquire('n3', 300)) ?? '', 300, cancelled);
    cancelled.abort(new Error('job cancelled'));
    expect(() => first.check()).to.not.throw();
    await first.release();

    const job = new AbortController();
    const held = holdLock(locks, 'n3', (await locks.tryAcquire('n3', 300)) ?? '', 300, job);
    await h.redis.set(`${h.prefix}:lock:n3`, 'someone-else');
    await eventually(() => Promise.resolve(job.signal.aborted ? true : undefined), 2000);
    expect(String(job.signal.reason)).to.match(/lost the lock of n3/);
    expect(held.lost).to.equal(job.signal);
    await held.release();
  });

  it('a job whose name lock is lost mid-create stops, and its retry finishes the VM', async () => {
    h = createHarness('lock-lost', { config: { budgets: { lockTtlMs: 600 }, jobs: { attempts: 3, backoffMs: 50 } }, provider: { stepMs: 250 } });
    const { jobId } = await h.client.createVm({ name: 'stolen', uid: 'u1' });
    await h.startWorker();
    await eventually(async () => ((await h.provider.vm('stolen'))?.steps.includes('cloned') ? true : undefined));
    // Someone else's token: renewal is refused, the signal aborts.
    await h.redis.set(`${h.prefix}:lock:stolen`, 'someone-else', 'PX', 400);
    const view = await h.client.waitForJob(jobId, { timeoutMs: 15_000 });
    expect(view.state).to.equal('completed');
    expect(view.logs.some((line) => /attempt 1 failed: lost the lock of stolen/.test(line))).to.equal(true);
    const creates = (await h.provider.calls()).filter((c) => c.op === 'create');
    expect(creates.map((c) => c.outcome)).to.deep.equal(['error', 'ok']);
    expect((await h.provider.vm('stolen'))?.steps).to.have.length(5);
    expect(await h.provider.vmidsIssued()).to.equal(1);
  });

  it('a job whose BullMQ job lock is lost mid-create has its provider calls aborted, and is finished by a later run', async () => {
    h = createHarness('job-lock-lost', { config: { budgets: { lockTtlMs: 600 }, jobs: { attempts: 3, backoffMs: 50 } }, provider: { stepMs: 250 } });
    const { jobId } = await h.client.createVm({ name: 'unlocked', uid: 'u1' });
    await h.startWorker();
    await eventually(async () => ((await h.provider.vm('unlocked'))?.steps.includes('cloned') ? true : undefined));
    // As if the job's lock had expired and the job was taken elsewhere.
    await h.redis.del(`${h.prefix}:vm:${jobId}:lock`);
    const view = await h.client.waitForJob(jobId, { timeoutMs: 15_000 });
    expect(view.state).to.equal('completed');
    const creates = (await h.provider.calls()).filter((c) => c.op === 'create');
    expect(creates.map((c) => c.outcome)).to.deep.equal(['error', 'ok'], 'the first run was aborted before its next step');
    expect((await h.provider.vm('unlocked'))?.steps).to.deep.equal(CREATE_STEPS);
  });
});
