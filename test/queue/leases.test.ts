// SPEC 31: a create's lease, as a caller sees it through the producer
// library: recorded on the name with the intent and its timers set at the
// accept, kept by a repeat, moved by another ttl or a renewal, ended by a
// delete; shown as expiresAt, filtered by expiringBefore. The timers are
// a recording fake: what they do at expiry is not this file's subject.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createProvisionerClient, LeaseShortenError, NameNotFoundError, ValidationError } from '../../src/client.js';
import type { ProvisionerClient } from '../../src/client.js';
import type { Lease } from '../../src/desired-state.js';
import type { LeaseTimer } from '../../src/queue/lease-timer.js';
import { REDIS_URL, deletePrefix, testConfig, uniquePrefix } from '../support/redis.js';

type TimerCall = { op: 'set'; name: string; generation: number; lease: Lease } | { op: 'clear'; name: string };

function recordingTimer(calls: TimerCall[]): LeaseTimer {
  return {
    set: (name, generation, lease) => {
      calls.push({ op: 'set', name, generation, lease });
      return Promise.resolve();
    },
    clear: (name) => {
      calls.push({ op: 'clear', name });
      return Promise.resolve();
    },
  };
}

/** The error a call rejects with. */
async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('expected the call to be refused'),
    (err: unknown) => err,
  );
}

const HOUR = 3600;

describe('leases at the producer library (SPEC 31)', function () {
  this.timeout(20_000);
  let prefix: string;
  let redis: Redis;
  let client: ProvisionerClient;
  let calls: TimerCall[];

  const open = (leases: Record<string, unknown> = {}): ProvisionerClient => {
    const config = testConfig(prefix, { leases });
    return createProvisionerClient({ redisUrl: REDIS_URL, redis: config.redis, prefix, config, leaseTimers: () => recordingTimer(calls) });
  };

  beforeEach(() => {
    prefix = uniquePrefix('leases');
    redis = new Redis(REDIS_URL);
    calls = [];
    client = open();
  });
  afterEach(async () => {
    await client.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it('a create with ttlSeconds records expiresAt = accept time + ttl on the name and sets the timer, version 1', async () => {
    const before = Date.now();
    const created = await client.createVm({ name: 'web-1', ttlSeconds: HOUR });
    const after = Date.now();
    const expires = Date.parse(created.expiresAt ?? '');
    expect(expires).to.be.within(before + HOUR * 1000, after + HOUR * 1000);
    expect(created.onExpiry).to.equal('delete');
    const vm = await client.getVm('web-1');
    expect(vm).to.include({ expiresAt: created.expiresAt, onExpiry: 'delete' });
    expect(calls).to.deep.equal([{ op: 'set', name: 'web-1', generation: created.generation, lease: { expiresAt: created.expiresAt, onExpiry: 'delete', version: 1 } }]);
    // The lease is the name's, not the job's: the stored create carries no ttl.
    const job = await client.getJob(created.jobId);
    expect(job?.data).to.not.have.property('ttlSeconds');
  });

  it('without ttlSeconds, leases.defaultSeconds decides: 0 gives no lease and no timer, 600 gives one; onExpiry defaults from leases.onExpiry', async () => {
    const plain = await client.createVm({ name: 'web-1' });
    expect(plain).to.not.have.property('expiresAt');
    expect(await client.getVm('web-1')).to.not.have.property('expiresAt');
    expect(calls).to.deep.equal([]);
    await client.close();
    client = open({ defaultSeconds: 600, onExpiry: 'stop' });
    const before = Date.now();
    const leased = await client.createVm({ name: 'web-2' });
    expect(Date.parse(leased.expiresAt ?? '') - before).to.be.within(600_000, 600_000 + (Date.now() - before));
    expect(leased.onExpiry).to.equal('stop');
    expect((await client.createVm({ name: 'web-3', onExpiry: 'delete', ttlSeconds: 60 })).onExpiry).to.equal('delete');
  });

  it('refuses a ttlSeconds past leases.maxSeconds, a negative one and an unknown onExpiry, naming each field', async () => {
    await client.close();
    client = open({ maxSeconds: HOUR });
    const err = await refusal(client.createVm({ name: 'web-1', ttlSeconds: HOUR + 1, onExpiry: 'pause' }));
    expect(err).to.be.instanceOf(ValidationError);
    expect((err as ValidationError).fields.map((f) => f.field)).to.deep.equal(['ttlSeconds', 'onExpiry']);
    expect((err as ValidationError).fields[0]?.message).to.include(`from 0 to ${HOUR}`);
    expect(((await refusal(client.createVm({ name: 'web-1', ttlSeconds: -1 }))) as ValidationError).fields.map((f) => f.field)).to.deep.equal(['ttlSeconds']);
    expect(await client.getVm('web-1')).to.equal(undefined);
    expect((await client.createVm({ name: 'web-1', ttlSeconds: HOUR })).expiresAt).to.be.a('string');
  });

  it('a repeat of the same create keeps the lease; another ttl moves it from now with no 409; ttl 0 ends it', async () => {
    const first = await client.createVm({ name: 'web-1', ttlSeconds: HOUR });
    const repeat = await client.createVm({ name: 'web-1', ttlSeconds: HOUR });
    expect(repeat).to.include({ existing: true, jobId: first.jobId, expiresAt: first.expiresAt });
    const moved = await client.createVm({ name: 'web-1', ttlSeconds: 2 * HOUR });
    expect(moved).to.include({ existing: true, jobId: first.jobId, generation: first.generation });
    expect(Date.parse(moved.expiresAt ?? '')).to.be.greaterThan(Date.parse(first.expiresAt ?? '') + HOUR * 1000 - 5_000);
    expect((await client.getVm('web-1'))?.expiresAt).to.equal(moved.expiresAt);
    const versions = calls.flatMap((c) => (c.op === 'set' ? [c.lease.version] : []));
    expect(versions).to.deep.equal([1, 1, 2], 'set at the accept, again (unchanged) by the repeat, moved by the new ttl');
    const ended = await client.createVm({ name: 'web-1', ttlSeconds: 0 });
    expect(ended).to.not.have.property('expiresAt');
    expect(await client.getVm('web-1')).to.not.have.property('expiresAt');
    expect(calls.at(-1)).to.deep.equal({ op: 'clear', name: 'web-1' });
  });

  it('an in-place change keeps the lease and sets the timers for its new generation', async () => {
    const first = await client.createVm({ name: 'web-1', ttlSeconds: HOUR, cores: 2 });
    const changed = await client.createVm({ name: 'web-1', ttlSeconds: HOUR, cores: 4 });
    expect(changed.changes).to.deep.equal(['cores']);
    expect(changed.expiresAt).to.equal(first.expiresAt);
    expect(calls.at(-1)).to.deep.include({ op: 'set', generation: changed.generation });
    expect(changed.generation).to.equal((first.generation ?? 0) + 1);
  });

  it('a delete ends the lease and clears the timer; a create after it starts a new lease at version 1', async () => {
    await client.createVm({ name: 'web-1', ttlSeconds: HOUR });
    await client.deleteVm({ name: 'web-1' });
    expect(calls.at(-1)).to.deep.equal({ op: 'clear', name: 'web-1' });
    expect(await client.getVm('web-1')).to.not.have.property('expiresAt');
    expect((await client.listVms({ expiringBefore: new Date(Date.now() + 2 * HOUR * 1000).toISOString() })).vms).to.deep.equal([]);
    const again = await client.createVm({ name: 'web-1', ttlSeconds: 60 });
    expect(calls.at(-1)).to.deep.include({ op: 'set', generation: again.generation, lease: { expiresAt: again.expiresAt, onExpiry: 'delete', version: 1 } });
  });

  it('a renewal moves the expiry (the issue\'s test): a new version from now, its timer set, shown by getVm', async () => {
    const created = await client.createVm({ name: 'web-1', ttlSeconds: 60 });
    const before = Date.now();
    const renewed = await client.renewLease('web-1', { ttlSeconds: HOUR });
    expect(renewed).to.include({ name: 'web-1', onExpiry: 'delete', version: 2 });
    expect(Date.parse(renewed.expiresAt)).to.be.within(before + HOUR * 1000, Date.now() + HOUR * 1000);
    expect((await client.getVm('web-1'))?.expiresAt).to.equal(renewed.expiresAt);
    expect(calls.at(-1)).to.deep.equal({ op: 'set', name: 'web-1', generation: created.generation, lease: { expiresAt: renewed.expiresAt, onExpiry: 'delete', version: 2 } });
    // A repeat of the create after the renewal keeps the renewed expiry: it does not fall back to the create's ttl.
    expect((await client.createVm({ name: 'web-1', ttlSeconds: 60 })).expiresAt).to.equal(renewed.expiresAt);
    const at = new Date(Date.now() + 2 * HOUR * 1000).toISOString();
    expect((await client.renewLease('web-1', { expiresAt: at })).expiresAt).to.equal(at);
  });

  it('never shortens a lease unless asked: earlier without shorten is a LeaseShortenError and changes nothing', async () => {
    const created = await client.createVm({ name: 'web-1', ttlSeconds: 2 * HOUR });
    const setsBefore = calls.length;
    const err = await refusal(client.renewLease('web-1', { ttlSeconds: 60 }));
    expect(err).to.be.instanceOf(LeaseShortenError);
    expect((err as LeaseShortenError).expiresAt).to.equal(created.expiresAt);
    expect((await client.getVm('web-1'))?.expiresAt).to.equal(created.expiresAt);
    expect(calls.length).to.equal(setsBefore);
    const shortened = await client.renewLease('web-1', { ttlSeconds: 60 }, { shorten: true });
    expect(Date.parse(shortened.expiresAt)).to.be.below(Date.parse(created.expiresAt ?? ''));
  });

  it('refuses a renewal past leases.maxSeconds from now, or in the past, naming the field; both or neither of ttlSeconds and expiresAt too', async () => {
    await client.createVm({ name: 'web-1', ttlSeconds: 60 });
    const max = testConfig(prefix).leases.maxSeconds;
    const fieldsOf = async (call: Promise<unknown>): Promise<string[]> => ((await refusal(call)) as ValidationError).fields.map((f) => f.field);
    expect(await fieldsOf(client.renewLease('web-1', { ttlSeconds: max + 1 }))).to.deep.equal(['ttlSeconds']);
    expect(await fieldsOf(client.renewLease('web-1', { expiresAt: new Date(Date.now() + (max + 60) * 1000).toISOString() }))).to.deep.equal(['expiresAt']);
    expect(await fieldsOf(client.renewLease('web-1', { expiresAt: '2001-01-01T00:00:00Z' }))).to.deep.equal(['expiresAt']);
    expect(await fieldsOf(client.renewLease('web-1', { expiresAt: 'tomorrow' }))).to.deep.equal(['expiresAt']);
    expect(await fieldsOf(client.renewLease('web-1', {} as { ttlSeconds: number }))).to.deep.equal(['ttlSeconds']);
    expect(await fieldsOf(client.renewLease('Web_1', { ttlSeconds: 60 }))).to.deep.equal(['name']);
  });

  it('a renewal of an unknown or deleted name is a NameNotFoundError; of a name without a lease it starts one', async () => {
    expect(await refusal(client.renewLease('nobody', { ttlSeconds: 60 }))).to.be.instanceOf(NameNotFoundError);
    await client.createVm({ name: 'gone' });
    await client.deleteVm({ name: 'gone' });
    expect(await refusal(client.renewLease('gone', { ttlSeconds: 60 }))).to.be.instanceOf(NameNotFoundError);
    await client.createVm({ name: 'plain', onExpiry: 'stop' });
    const started = await client.renewLease('plain', { ttlSeconds: 60 });
    expect(started).to.include({ onExpiry: 'stop' });
    expect((await client.getVm('plain'))?.expiresAt).to.equal(started.expiresAt);
  });

  it('listVms({ expiringBefore }) gives the names whose lease ends before then, in name order, a page at a time', async () => {
    await client.createVm({ name: 'c-soon', ttlSeconds: 60 });
    await client.createVm({ name: 'a-soon', ttlSeconds: 120 });
    await client.createVm({ name: 'b-late', ttlSeconds: 5 * HOUR });
    await client.createVm({ name: 'd-none' });
    const before = new Date(Date.now() + HOUR * 1000).toISOString();
    expect((await client.listVms({ expiringBefore: before })).vms.map((vm) => vm.name)).to.deep.equal(['a-soon', 'c-soon']);
    const first = await client.listVms({ expiringBefore: before, limit: 1 });
    expect(first.vms.map((vm) => vm.name)).to.deep.equal(['a-soon']);
    const second = await client.listVms({ expiringBefore: before, limit: 1, cursor: first.nextCursor ?? '' });
    expect({ names: second.vms.map((vm) => vm.name), next: second.nextCursor }).to.deep.equal({ names: ['c-soon'], next: null });
    expect((await client.listVms({})).vms.find((vm) => vm.name === 'b-late')).to.have.property('expiresAt');
    const err = await refusal(client.listVms({ expiringBefore: 'soon' }));
    expect((err as ValidationError).fields.map((f) => f.field)).to.deep.equal(['expiringBefore']);
  });
});
