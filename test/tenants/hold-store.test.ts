// SPEC 34 (issue 33): a tenant's quota hold ends when the VM of its name
// and uid is gone, and its sizes leave the tenant's sums. The release
// script against the real Redis, on the tenants' shared layout: the
// guards of an address lease's release, idempotent, sums never below 0;
// and the store's listing and usage.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { keys } from '../../src/redis-keys.js';
import { TenantHoldStore } from '../../src/tenants/hold-store.js';
import { holdJson, putHold, testHold } from '../support/tenant-holds.js';
import { deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';

describe("a tenant's quota hold ends, and leaves its sums (SPEC 34)", () => {
  let redis: Redis;
  let prefix: string;
  let store: TenantHoldStore;

  beforeEach(() => {
    redis = newRedis();
    prefix = keyPrefix(uniquePrefix('tenant-holds'));
    store = new TenantHoldStore(redis, prefix);
  });

  afterEach(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it("a release removes the hold and takes its sizes off the tenant's sums, and a second one changes nothing", async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme', { cores: 2, memoryMiB: 2048, diskGiB: 20 }));
    await putHold(redis, prefix, 'web-2', 'u2', testHold('acme', { cores: 4, memoryMiB: 4096, diskGiB: 40 }));
    expect(await store.usage('acme')).to.deep.equal({ vms: 2, cores: 6, memoryMiB: 6144, diskGiB: 60 });

    const released = await store.release('web-1', 'u1');
    expect(released).to.deep.equal({ name: 'web-1', uid: 'u1', tenant: 'acme', vms: 1, cores: 2, memoryMiB: 2048, diskGiB: 20 });
    expect(await holdJson(redis, prefix, 'web-1', 'u1')).to.equal(null);
    expect(await store.usage('acme')).to.deep.equal({ vms: 1, cores: 4, memoryMiB: 4096, diskGiB: 40 });

    expect(await store.release('web-1', 'u1'), 'no hold: nothing').to.equal(undefined);
    expect(await store.usage('acme'), 'the sums as they were').to.deep.equal({ vms: 1, cores: 4, memoryMiB: 4096, diskGiB: 40 });
  });

  it('never takes a sum below 0 (a sum short of its holds stays at 0)', async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme', { cores: 8 }));
    await redis.hset(keys.tenantUse(prefix), 'acme cores', 3);
    await store.release('web-1', 'u1');
    expect(await redis.hget(keys.tenantUse(prefix), 'acme cores')).to.equal('0');
    expect(await store.usage('acme')).to.deep.equal({ vms: 0, cores: 0, memoryMiB: 0, diskGiB: 0 });
  });

  it("touches only its own tenant's sums", async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme'));
    await putHold(redis, prefix, 'db-1', 'u1', testHold('beta', { cores: 1 }));
    await store.release('web-1', 'u1');
    expect(await store.usage('beta')).to.deep.equal({ vms: 1, cores: 1, memoryMiB: 2048, diskGiB: 20 });
  });

  it('`unclaimed` keeps the hold while the name is present with its uid, and frees it once the name is absent or present with another uid', async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme'));
    await redis.hset(keys.desired(prefix, 'web-1'), { state: 'present', uid: 'u1', generation: 1 });
    expect(await store.release('web-1', 'u1', 'unclaimed')).to.equal(undefined);
    expect(await holdJson(redis, prefix, 'web-1', 'u1')).to.not.equal(null);
    expect((await store.usage('acme')).vms).to.equal(1);

    await redis.hset(keys.desired(prefix, 'web-1'), { uid: 'u2' });
    expect(await store.release('web-1', 'u1', 'unclaimed')).to.include({ tenant: 'acme' });
    expect((await store.usage('acme')).vms).to.equal(0);

    await putHold(redis, prefix, 'web-3', 'u1', testHold('acme'));
    await redis.hset(keys.desired(prefix, 'web-3'), { state: 'absent', uid: 'u1', generation: 2 });
    expect(await store.release('web-3', 'u1', 'unclaimed')).to.include({ tenant: 'acme' });
  });

  it("`failed` frees the hold of a name present with its uid only while that create's failure is on it", async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme'));
    await redis.hset(keys.desired(prefix, 'web-1'), { state: 'present', uid: 'u1', generation: 1 });
    expect(await store.release('web-1', 'u1', 'failed'), 'no failure recorded').to.equal(undefined);
    await redis.hset(keys.desired(prefix, 'web-1'), { failed: JSON.stringify({ jobId: 'j1', generation: 1 }) });
    expect(await store.release('web-1', 'u1', 'failed')).to.include({ tenant: 'acme' });
    expect(await store.usage('acme')).to.deep.equal({ vms: 0, cores: 0, memoryMiB: 0, diskGiB: 0 });
  });

  it('`none` frees whatever the record says', async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme'));
    await redis.hset(keys.desired(prefix, 'web-1'), { state: 'present', uid: 'u1', generation: 1 });
    expect(await store.release('web-1', 'u1', 'none')).to.include({ tenant: 'acme' });
  });

  it('lists every hold with its name, uid and tenant, and reads every tenant\'s usage', async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme'));
    await putHold(redis, prefix, 'db-1', 'u-9', testHold('beta', { cores: 1, memoryMiB: 512, diskGiB: 8 }));
    await redis.hset(keys.tenantHolds(prefix), 'junk', 'not json');
    const listed = (await store.list()).sort((a, b) => a.name.localeCompare(b.name));
    expect(listed).to.deep.equal([
      { name: 'db-1', uid: 'u-9', tenant: 'beta', vms: 1, cores: 1, memoryMiB: 512, diskGiB: 8 },
      { name: 'web-1', uid: 'u1', tenant: 'acme', vms: 1, cores: 2, memoryMiB: 2048, diskGiB: 20 },
    ]);
    expect(await store.holdOf('db-1', 'u-9')).to.deep.equal({ tenant: 'beta', vms: 1, cores: 1, memoryMiB: 512, diskGiB: 8 });
    expect(await store.holdOf('db-1', 'u-0')).to.equal(undefined);
    expect(Object.fromEntries(await store.allUsage())).to.deep.equal({
      acme: { vms: 1, cores: 2, memoryMiB: 2048, diskGiB: 20 },
      beta: { vms: 1, cores: 1, memoryMiB: 512, diskGiB: 8 },
    });
  });
});
