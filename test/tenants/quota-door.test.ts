// SPEC 34 (issue 33): a tenant's quotas are checked and its hold taken in
// the accept's one script with the registry write, so creates racing each
// other never pass a quota, and a refused create writes nothing; a name
// belongs to the tenant that created it. Runs on the real Redis, and on a
// Redis Cluster under `npm run test:cluster` (the script's keys share the
// prefix's hash tag).
import { expect } from 'chai';
import { NameNotFoundError, NameTakenError, QuotaExceededError, RateLimitedError } from '../../src/client.js';
import { validateJobData, limitsFromConfig } from '../../src/job-table/schema.js';
import type { CreateJobInput } from '../../src/job-table/create.schema.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { acceptCreate, acceptDelete, type IntentWriters } from '../../src/queue/intent.js';
const NO_LEASE_TIMERS = { set: () => Promise.resolve(), clear: () => Promise.resolve() };
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import type { Tenant } from '../../src/tenants/types.js';
import { readUsage } from '../../src/tenants/usage-read.js';
import { createHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/redis.js';

const tenant = (name: string, quotas: Tenant['quotas'] = {}, scope: Tenant['scope'] = 'write'): Tenant => ({ name, scope, quotas });

/** Runs `count` calls `width` at a time; each call's outcome in order. */
async function concurrently<T>(count: number, width: number, call: (i: number) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  const outcomes: PromiseSettledResult<T>[] = new Array<PromiseSettledResult<T>>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next;
      next += 1;
      try {
        outcomes[i] = { status: 'fulfilled', value: await call(i) };
      } catch (reason) {
        outcomes[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return outcomes;
}

describe('tenants at the door: quotas, rate and ownership (SPEC 34)', function () {
  this.timeout(120_000);
  let h: Harness;
  let writers: IntentWriters;

  beforeEach(() => {
    h = createHarness('tenant-door');
    const limits = limitsFromConfig(h.config);
    writers = { door: jobDoor(h.queues, limits), registry: new DesiredStateRegistry(h.redis, h.prefix, 60), limits, leaseTimer: NO_LEASE_TIMERS };
  });
  afterEach(async () => {
    await h.close();
  });

  const input = (fields: Record<string, unknown>): CreateJobInput => {
    const checked = validateJobData('create', fields, writers.limits);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    return checked.value;
  };
  const create = (who: Tenant, fields: Record<string, unknown>) => acceptCreate(writers, input(fields), { tenant: who });
  const vmJobs = async () => (await h.queues.vm.getJobs(['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'])).filter((job) => job.name === 'create');

  it('200 creates of one tenant at 20 at once against a quota of 50 VMs: exactly 50 accepted, the rest refused naming the quota, nothing of theirs written', async () => {
    const alpha = tenant('alpha', { vms: 50 });
    const outcomes = await concurrently(200, 20, (i) => create(alpha, { name: `q-${i}`, cores: 1, memoryMiB: 512, diskGiB: 4 }));
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
    expect(accepted).to.have.length(50);
    expect(refused).to.have.length(150);
    for (const err of refused) {
      expect(err).to.be.instanceOf(QuotaExceededError);
      expect(err).to.include({ tenant: 'alpha', quota: 'vms', use: 50, asked: 1, limit: 50 });
      expect((err as Error).message).to.match(/vms quota is 50; it holds 50/);
    }
    expect(await vmJobs()).to.have.length(50);
    expect(await h.redis.scard(keys.desiredIndex(h.prefix))).to.equal(50);
    expect(await readUsage(h.redis, h.prefix, 'alpha')).to.deep.equal({ vms: 50, cores: 50, memoryMiB: 25_600, diskGiB: 200 });
    expect(await h.redis.hlen(keys.tenantHolds(h.prefix))).to.equal(50);

    // Deletes free the quota once their VMs are gone (the delete job gives the hold back), not before.
    const names = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.name] : []));
    for (const name of names.slice(0, 10)) await acceptDelete(writers, { name }, alpha);
    expect(await create(alpha, { name: 'q-after-0' }).catch((err: unknown) => err)).to.be.instanceOf(QuotaExceededError);
    await h.startWorker();
    await eventually(async () => ((await readUsage(h.redis, h.prefix, 'alpha')).vms === 40 ? true : undefined), 60_000);
    const again = await concurrently(20, 20, (i) => create(alpha, { name: `q-after-${i}`, cores: 1, memoryMiB: 512, diskGiB: 4 }));
    expect(again.filter((o) => o.status === 'fulfilled')).to.have.length(10);
    expect(await readUsage(h.redis, h.prefix, 'alpha')).to.include({ vms: 50 });
  });

  it('cores, memory and disk quotas name the quota, the use and the limit; an in-place change counts only its growth', async () => {
    const beta = tenant('beta', { cores: 5, memoryMiB: 4096, diskGiB: 30 });
    await create(beta, { name: 'b-1', uid: 'u1', cores: 2, memoryMiB: 1024, diskGiB: 10 });
    await create(beta, { name: 'b-2', uid: 'u2', cores: 2, memoryMiB: 1024, diskGiB: 10 });
    const cores = await create(beta, { name: 'b-3', cores: 2, memoryMiB: 1024, diskGiB: 10 }).catch((err: unknown) => err);
    expect(cores).to.be.instanceOf(QuotaExceededError).and.include({ quota: 'cores', use: 4, asked: 2, limit: 5 });
    const memory = await create(beta, { name: 'b-3', cores: 1, memoryMiB: 4096, diskGiB: 10 }).catch((err: unknown) => err);
    expect(memory).to.be.instanceOf(QuotaExceededError).and.include({ quota: 'memoryMiB', use: 2048, limit: 4096 });
    const disk = await create(beta, { name: 'b-3', cores: 1, memoryMiB: 512, diskGiB: 11 }).catch((err: unknown) => err);
    expect(disk).to.be.instanceOf(QuotaExceededError).and.include({ quota: 'diskGiB', use: 20, limit: 30 });
    expect(await writers.registry.get('b-3')).to.equal(undefined);
    // b-1 from 2 cores to 4 adds 2: 6 > 5; to 3 adds 1: 5.
    const grown = await create(beta, { name: 'b-1', uid: 'u1', cores: 4, memoryMiB: 1024, diskGiB: 10 }).catch((err: unknown) => err);
    expect(grown).to.be.instanceOf(QuotaExceededError).and.include({ quota: 'cores', use: 4, asked: 2, limit: 5 });
    expect((await writers.registry.get('b-1'))?.generation).to.equal(1);
    expect((await create(beta, { name: 'b-1', uid: 'u1', cores: 3, memoryMiB: 1024, diskGiB: 10 })).changes).to.deep.equal(['cores']);
    expect(await readUsage(h.redis, h.prefix, 'beta')).to.deep.equal({ vms: 2, cores: 5, memoryMiB: 2048, diskGiB: 20 });
    // A repeat adds nothing, so a full quota does not refuse it.
    expect((await create(beta, { name: 'b-2', uid: 'u2', cores: 2, memoryMiB: 1024, diskGiB: 10 })).existing).to.equal(true);
  });

  it('creates per minute: a new generation takes a token, a repeat none; an empty bucket is a RateLimitedError with the seconds to wait, writing nothing', async () => {
    const gamma = tenant('gamma', { createsPerMinute: 3 });
    for (const name of ['r-1', 'r-2', 'r-3']) await create(gamma, { name, uid: `u-${name}` });
    expect((await create(gamma, { name: 'r-1', uid: 'u-r-1' })).existing).to.equal(true);
    const limited = await create(gamma, { name: 'r-4' }).catch((err: unknown) => err);
    expect(limited).to.be.instanceOf(RateLimitedError).and.include({ tenant: 'gamma', limit: 3 });
    const wait = (limited as RateLimitedError).retryAfterSeconds;
    expect(wait).to.be.within(1, 20);
    expect(await writers.registry.get('r-4')).to.equal(undefined);
    expect(await readUsage(h.redis, h.prefix, 'gamma')).to.include({ vms: 3 });
    // Another tenant's bucket is its own.
    expect((await create(tenant('delta', { createsPerMinute: 3 }), { name: 'r-5' })).existing).to.equal(false);
  });

  it("a name is its creator's: another tenant's create is NameTaken and its delete not found; an admin acts on it and it stays the creator's", async () => {
    const alpha = tenant('alpha');
    const beta = tenant('beta');
    const admin = tenant('ops', {}, 'admin');
    const first = await create(alpha, { name: 'own-1', uid: 'ua' });
    const job = await h.queues.vm.getJob(first.jobId);
    expect((job?.data as { tenant?: string }).tenant).to.equal('alpha');
    expect(await create(beta, { name: 'own-1', uid: 'ua' }).catch((err: unknown) => err)).to.be.instanceOf(NameTakenError);
    const taken = await create(beta, { name: 'own-1', uid: 'ub', cores: 3 }).catch((err: unknown) => err);
    expect(taken).to.be.instanceOf(NameTakenError);
    expect((taken as Error).message).to.not.match(/ua|alpha|cores/);
    expect(await acceptDelete(writers, { name: 'own-1' }, beta).catch((err: unknown) => err)).to.be.instanceOf(NameNotFoundError);
    expect(await acceptDelete(writers, { name: 'never-1' }, beta).catch((err: unknown) => err)).to.be.instanceOf(NameNotFoundError);
    expect((await writers.registry.get('own-1'))?.state).to.equal('present');
    expect((await create(admin, { name: 'own-1', uid: 'ua' })).existing).to.equal(true);
    expect((await writers.registry.get('own-1'))?.tenant).to.equal('alpha');
    const deleted = await acceptDelete(writers, { name: 'own-1' }, admin);
    expect((await h.queues.vm.getJob(deleted.jobId))?.data).to.include({ tenant: 'alpha' });
    // Deleted, its VM (its hold) not yet gone: still taken for another tenant.
    expect(await create(beta, { name: 'own-1' }).catch((err: unknown) => err)).to.be.instanceOf(NameTakenError);
    // Its VM gone (the hold given back): the name is free, and the new creator's.
    await h.redis.hdel(keys.tenantHolds(h.prefix), 'own-1 ua');
    await create(beta, { name: 'own-1', uid: 'ub' });
    expect((await writers.registry.get('own-1'))?.tenant).to.equal('beta');
  });

  it("a name whose every old VM is gone goes to its next creator with no history of the old owner's; a retired uid's VM not gone keeps it taken", async () => {
    const alpha = tenant('alpha');
    const beta = tenant('beta');
    await create(alpha, { name: 'moved-1', uid: 'secret-u1' });
    await acceptDelete(writers, { name: 'moved-1' }, alpha);
    await create(alpha, { name: 'moved-1', uid: 'secret-u2' });
    await writers.registry.recordLastKnown('moved-1', { state: 'Running', vmid: 123, node: 'pve1', at: new Date().toISOString() });
    await acceptDelete(writers, { name: 'moved-1' }, alpha);
    expect((await writers.registry.get('moved-1'))?.retiredUids).to.deep.equal(['secret-u1']);
    // u2's VM gone, u1's (retired, its delete superseded) still there: taken.
    await h.redis.hdel(keys.tenantHolds(h.prefix), 'moved-1 secret-u2');
    expect(await create(beta, { name: 'moved-1' }).catch((err: unknown) => err)).to.be.instanceOf(NameTakenError);
    await h.redis.hdel(keys.tenantHolds(h.prefix), 'moved-1 secret-u1');
    await create(beta, { name: 'moved-1', uid: 'beta-u' });
    const record = await writers.registry.get('moved-1');
    expect(record).to.include({ tenant: 'beta', uid: 'beta-u', state: 'present' });
    expect(JSON.stringify(record)).to.not.match(/secret-u|123/);
  });

  it("an admin's create of a name whose old VM is not gone yet takes it but keeps the old uid its delete and release need", async () => {
    await create(tenant('alpha'), { name: 'took-1', uid: 'ua' });
    await acceptDelete(writers, { name: 'took-1' }, tenant('alpha'));
    await create(tenant('ops', {}, 'admin'), { name: 'took-1', uid: 'uo' });
    expect(await writers.registry.get('took-1')).to.deep.include({ tenant: 'ops', uid: 'uo', retiredUids: ['ua'] });
  });

  it('an in-place shrink holds the larger size until its job has run, then gives the difference back', async () => {
    const beta = tenant('beta', { cores: 4 });
    await create(beta, { name: 's-1', uid: 'u1', cores: 4 });
    await h.startWorker();
    await eventually(async () => ((await h.queues.vm.getJob('create-s-1-1'))?.finishedOn === undefined ? undefined : true), 60_000);
    const shrink = await create(beta, { name: 's-1', uid: 'u1', cores: 1 });
    expect(shrink.changes).to.deep.equal(['cores']);
    await eventually(async () => ((await h.queues.vm.getJob(shrink.jobId))?.finishedOn === undefined ? undefined : true), 60_000);
    expect((await h.queues.vm.getJob(shrink.jobId))?.failedReason).to.equal(undefined);
    expect((await readUsage(h.redis, h.prefix, 'beta')).cores).to.equal(1);
    expect((await create(beta, { name: 's-2', cores: 3 })).existing).to.equal(false);
  });

  it('a shrink whose job has not run yet frees nothing: the VM keeps its sizes until then', async () => {
    const beta = tenant('beta', { cores: 4 });
    await create(beta, { name: 's-3', uid: 'u3', cores: 4 });
    await create(beta, { name: 's-3', uid: 'u3', cores: 1 });
    expect((await readUsage(h.redis, h.prefix, 'beta')).cores).to.equal(4);
    expect(await create(beta, { name: 's-4', cores: 1 }).catch((err: unknown) => err)).to.be.instanceOf(QuotaExceededError);
  });

  it("a check asked by the name's old owner reports nothing of the VM its new owner made", async () => {
    await create(tenant('alpha'), { name: 'c-1', uid: 'ua' });
    await acceptDelete(writers, { name: 'c-1' }, tenant('alpha'));
    await h.redis.hdel(keys.tenantHolds(h.prefix), 'c-1 ua');
    const made = await create(tenant('beta'), { name: 'c-1', uid: 'ub' });
    await h.startWorker();
    await eventually(async () => ((await h.queues.vm.getJob(made.jobId))?.finishedOn === undefined ? undefined : true), 60_000);
    const stale = await writers.door.add('check', { name: 'c-1', tenant: 'alpha' });
    const own = await writers.door.add('check', { name: 'c-1', tenant: 'beta' });
    const result = async (id: string | undefined) => (await h.client.waitForJob(id ?? '', { timeoutMs: 30_000 })).result as { state?: string; vmid?: number };
    expect(await result(stale.id)).to.deep.equal({ state: 'NotFound' });
    expect((await result(own.id)).state).to.not.equal('NotFound');
  });

  it("the service's own jobs (a sweep, a health check) are the admin's alone", async () => {
    const health = await writers.door.add('health', {});
    const reconcile = await writers.door.add('reconcile', {});
    const reader = h.client.asTenant({ name: 'alpha', scope: 'read', quotas: {} });
    expect(await reader.getJob(health.id ?? '')).to.equal(undefined);
    expect(await reader.getJob(reconcile.id ?? '')).to.equal(undefined);
    expect((await h.client.getJob(reconcile.id ?? ''))?.job).to.equal('reconcile');
    // Its own name's jobs it sees.
    const own = await create(tenant('alpha'), { name: 'd-1' });
    expect((await reader.getJob(own.jobId))?.job).to.equal('create');
  });

  it("the service's own creates (a warm pool's member) take no hold and record no tenant", async () => {
    await acceptCreate(writers, input({ name: 'pvep-pool-web-1' }), { poolMember: 'web' });
    expect(await h.redis.hlen(keys.tenantHolds(h.prefix))).to.equal(0);
    expect((await writers.registry.get('pvep-pool-web-1'))?.tenant).to.equal(undefined);
  });
});
