// SPEC 31: a lease's expiry records its onExpiry intent in the one script
// that finds the lease due and of the timer's version, through the intent
// path a caller's delete takes (SPEC 2): an older version's timer, or one
// early, does nothing; a stop keeps the name present, and the same spec
// asked again is a new generation whose create starts the VM.
import { expect } from 'chai';
import type { Lease } from '../../src/desired-state.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { expireLease } from '../../src/queue/lease-expiry.js';
import { createLeaseTimer, recordedExpiryTimer } from '../../src/queue/lease-timer.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { createHarness, type Harness } from '../support/harness.js';

const T0 = new Date('2026-12-01T10:00:00.250Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

describe('a lease expiry through the registry and the door (SPEC 31)', function () {
  let h: Harness;
  let registry: DesiredStateRegistry;

  beforeEach(() => {
    h = createHarness('lease-expiry');
    registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
  });
  afterEach(async () => {
    await h.close();
  });

  /** What lease-core's accept writes on the record: the lease JSON. */
  async function withLease(name: string, lease: Lease): Promise<void> {
    await h.redis.hset(keys.desired(h.prefix, name), 'lease', JSON.stringify(lease));
  }

  const writers = () => ({ door: jobDoor(h.queues, limitsFromConfig(h.config)), registry });

  it('does nothing before expiresAt (saying how long is left), ends it at expiresAt, and only once', async () => {
    await h.client.createVm({ name: 'vm-a', uid: 'u1' });
    await withLease('vm-a', { expiresAt: T0.toISOString(), onExpiry: 'delete', version: 1 });
    expect(await registry.expireLease('vm-a', 1, at(-1500))).to.deep.equal({ kind: 'not-due', dueInMs: 1500 });
    const outcome = await expireLease({ ...writers(), now: () => at(0) }, 'vm-a', 1);
    expect(outcome).to.deep.include({ kind: 'recorded', action: 'delete', generation: 2, jobId: 'delete-vm-a-2', uid: 'u1', expiresAt: T0.toISOString() });
    const record = await registry.get('vm-a');
    expect(record).to.deep.include({ state: 'absent', generation: 2, jobId: 'delete-vm-a-2' });
    expect(record?.lease).to.equal(undefined);
    const job = await h.queues.vm.getJob('delete-vm-a-2');
    expect(job?.data).to.deep.equal({ name: 'vm-a', uid: 'u1', generation: 2, expiredAt: T0.toISOString(), leaseVersion: 1 });
    expect(await expireLease({ ...writers(), now: () => at(5000) }, 'vm-a', 1)).to.deep.equal({ kind: 'gone' });
  });

  it('a timer of an older lease version does nothing, however late (a renewal)', async () => {
    await h.client.createVm({ name: 'vm-b', uid: 'u1' });
    await withLease('vm-b', { expiresAt: at(60_000).toISOString(), onExpiry: 'delete', version: 2 });
    expect(await expireLease({ ...writers(), now: () => at(3600_000) }, 'vm-b', 1)).to.deep.equal({ kind: 'renewed' });
    expect((await registry.get('vm-b'))?.state).to.equal('present');
    expect(await h.queues.vm.getJobCounts('waiting')).to.deep.equal({ waiting: 1 }); // the create alone
  });

  it('a stop keeps the name present with a new generation; asked again it makes sure of the same job; the same spec created again is a new generation', async () => {
    const created = await h.client.createVm({ name: 'vm-c', uid: 'u1', cores: 2 });
    await withLease('vm-c', { expiresAt: T0.toISOString(), onExpiry: 'stop', version: 1 });
    const first = await expireLease({ ...writers(), now: () => at(10) }, 'vm-c', 1);
    expect(first).to.deep.include({ kind: 'recorded', action: 'stop', generation: 2, jobId: 'stop-vm-c-2' });
    const stopped = await registry.get('vm-c');
    expect(stopped).to.deep.include({ state: 'present', generation: 2, stopped: 2, jobId: 'stop-vm-c-2' });
    expect(stopped?.lease?.expiredAt).to.equal(at(10).toISOString());
    await (await h.queues.vm.getJob('stop-vm-c-2'))?.remove(); // lost
    expect(await expireLease({ ...writers(), now: () => at(20) }, 'vm-c', 1)).to.deep.include({ kind: 'existing', jobId: 'stop-vm-c-2' });
    expect((await h.queues.vm.getJob('stop-vm-c-2'))?.data).to.deep.include({ name: 'vm-c', uid: 'u1', generation: 2, expiredAt: T0.toISOString() });

    const again = await h.client.createVm({ name: 'vm-c', cores: 2 });
    expect(again).to.deep.include({ existing: false, generation: 3, jobId: 'create-vm-c-3', uid: 'u1' });
    expect(await h.queues.vm.getJobState('create-vm-c-3')).to.equal('waiting');
    const started = await registry.get('vm-c');
    expect(started?.stopped).to.equal(undefined);
    expect(started?.lease).to.equal(undefined);
    expect(created.generation).to.equal(1);
  });

  it('vm.expiring is marked once per lease version', async () => {
    await h.client.createVm({ name: 'vm-d', uid: 'u1' });
    await withLease('vm-d', { expiresAt: at(60_000).toISOString(), onExpiry: 'delete', version: 1 });
    expect(await registry.markWarned('vm-d', 2, T0)).to.equal(false);
    expect(await registry.markWarned('vm-d', 1, T0)).to.equal(true);
    expect(await registry.markWarned('vm-d', 1, T0)).to.equal(false);
    expect((await registry.get('vm-d'))?.lease?.warnedAt).to.equal(T0.toISOString());
  });

  it('the timer: a newer version removes the older one\'s jobs; an older set arriving late adds nothing', async () => {
    await h.client.createVm({ name: 'vm-e', uid: 'u1' });
    const door = jobDoor(h.queues, limitsFromConfig(h.config));
    const timer = createLeaseTimer({ door, queue: h.queues.leases, redis: h.redis, prefix: h.prefix, warnSeconds: 30, now: () => T0.getTime() });
    await timer.set('vm-e', 1, { expiresAt: at(120_000).toISOString(), onExpiry: 'delete', version: 1 });
    expect((await h.queues.leases.getDelayed()).map((j) => [j.id, j.opts.delay]).sort()).to.deep.equal([
      ['lease-expiry-vm-e-1-1', 120_000],
      ['lease-warning-vm-e-1-1', 90_000],
    ]);
    await timer.set('vm-e', 1, { expiresAt: at(600_000).toISOString(), onExpiry: 'delete', version: 2 });
    await timer.set('vm-e', 1, { expiresAt: at(120_000).toISOString(), onExpiry: 'delete', version: 1 });
    expect((await h.queues.leases.getDelayed()).map((j) => j.id).sort()).to.deep.equal(['lease-expiry-vm-e-1-2', 'lease-warning-vm-e-1-2']);
    expect(await recordedExpiryTimer(h.redis, h.prefix, 'vm-e', 2)).to.equal('lease-expiry-vm-e-1-2');
    await timer.clear('vm-e');
    expect(await h.queues.leases.getDelayedCount()).to.equal(0);
    expect(await recordedExpiryTimer(h.redis, h.prefix, 'vm-e', 2)).to.equal(undefined);
  });
  it('the timer: two renewals at once never leave the older version recorded over the newer one, nor its jobs behind', async () => {
    await h.client.createVm({ name: 'vm-f', uid: 'u1' });
    const door = jobDoor(h.queues, limitsFromConfig(h.config));
    // The older version's set reads the recorded ids, then waits in its add while the newer one's set runs whole.
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = (): void => undefined;
    const inAdd = new Promise<void>((resolve) => (entered = resolve));
    const gated: typeof door = { ...door, later: async (job, data, delayMs) => {
      if ((data as { leaseVersion?: number }).leaseVersion === 2) {
        entered();
        await gate;
      }
      return door.later(job, data, delayMs);
    } };
    const timer = createLeaseTimer({ door: gated, queue: h.queues.leases, redis: h.redis, prefix: h.prefix, warnSeconds: 0, now: () => T0.getTime() });
    await timer.set('vm-f', 1, { expiresAt: at(60_000).toISOString(), onExpiry: 'delete', version: 1 });
    const older = timer.set('vm-f', 1, { expiresAt: at(120_000).toISOString(), onExpiry: 'delete', version: 2 });
    await inAdd;
    await timer.set('vm-f', 1, { expiresAt: at(180_000).toISOString(), onExpiry: 'delete', version: 3 });
    release();
    await older;
    expect(await recordedExpiryTimer(h.redis, h.prefix, 'vm-f', 3)).to.equal('lease-expiry-vm-f-1-3');
    expect((await h.queues.leases.getDelayed()).map((j) => j.id)).to.deep.equal(['lease-expiry-vm-f-1-3']);
  });
});
