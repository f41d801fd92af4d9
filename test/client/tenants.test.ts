// Tenants through the producer library (SPEC 34): a tenant's client sees
// and acts on its own names and jobs alone, an admin on all, a `read`
// scope only reads. The accept's script records a name's tenant (the main
// session's part); until then these tests write the record's `tenant`
// field themselves after the create and have the record written again
// (a lastKnown), which files the name under its tenant as the script will.
import { expect } from 'chai';
import { NameNotFoundError, ProducerConfigError, ScopeError, ValidationError, createProvisionerClient } from '../../src/client.js';
import type { DesiredView, UncheckedProvisionerClient } from '../../src/client.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import type { Tenant } from '../../src/tenants/types.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { REDIS_URL } from '../support/redis.js';

const ALPHA: Tenant = { name: 'alpha', scope: 'write', quotas: { vms: 5 } };
const BETA: Tenant = { name: 'beta', scope: 'write', quotas: {} };

async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('the call was not refused'),
    (err: unknown) => err,
  );
}

/** Every name of every page of `client`'s listing, checking each page but the last is full. */
async function allPages(client: Pick<UncheckedProvisionerClient, 'listVms'>, limit: number, query: Record<string, string> = {}): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { vms: DesiredView[]; nextCursor: string | null } = await client.listVms({ ...query, limit, ...(cursor === null ? {} : { cursor }) });
    if (page.nextCursor !== null) expect(page.vms).to.have.length(limit);
    names.push(...page.vms.map((vm) => vm.name));
    cursor = page.nextCursor;
  } while (cursor !== null);
  return names;
}

describe('tenants in the producer library (SPEC 34)', function () {
  let h: Harness;
  let registry: DesiredStateRegistry;

  /** Creates `name` and makes it `tenant`'s as the accept's script will. */
  async function createOwned(name: string, tenant: string): Promise<string> {
    const { jobId } = await h.client.asTenant({ ...ALPHA, name: tenant }).createVm({ name });
    await h.redis.hset(keys.desired(h.prefix, name), 'tenant', tenant);
    await registry.recordLastKnown(name, { state: 'stopped', node: 'pve1', at: new Date().toISOString() });
    return jobId;
  }

  beforeEach(() => {
    h = createHarness('tenants');
    registry = new DesiredStateRegistry(h.redis, h.prefix, h.config.registry.tombstoneSeconds);
  });

  afterEach(async () => {
    await h.close();
  });

  it("a tenant gets its own names and never another's; an admin gets both, each showing its owner", async () => {
    await createOwned('alpha-1', 'alpha');
    await createOwned('beta-1', 'beta');
    const alpha = h.client.asTenant(ALPHA);
    const beta = h.client.asTenant(BETA);
    expect((await alpha.getVm('alpha-1'))?.tenant).to.equal('alpha');
    expect(await alpha.getVm('beta-1')).to.equal(undefined);
    expect(await beta.getVm('alpha-1')).to.equal(undefined);
    expect((await beta.getVm('beta-1'))?.tenant).to.equal('beta');
    expect((await h.client.getVm('alpha-1'))?.tenant).to.equal('alpha');
    expect((await h.client.getVm('beta-1'))?.tenant).to.equal('beta');
  });

  it("a tenant's listing pages are full pages of its own names, the cursor going on; an admin lists all or one tenant's", async () => {
    const owners = ['alpha', 'beta', 'beta', 'alpha', 'beta', 'alpha', 'alpha', 'beta', 'alpha'];
    for (const [i, owner] of owners.entries()) await createOwned(`vm-${i}`, owner);
    const named = (owner: string) => owners.flatMap((o, i) => (o === owner ? [`vm-${i}`] : []));
    expect(await allPages(h.client.asTenant(ALPHA), 2)).to.deep.equal(named('alpha'));
    expect(await allPages(h.client.asTenant(BETA), 3)).to.deep.equal(named('beta'));
    expect(await allPages(h.client, 4)).to.deep.equal(owners.map((_, i) => `vm-${i}`));
    expect(await allPages(h.client, 2, { tenant: 'beta' })).to.deep.equal(named('beta'));
    // Its own name as the filter is its own listing; state filters within it.
    expect(await allPages(h.client.asTenant(ALPHA), 2, { tenant: 'alpha', state: 'present' })).to.deep.equal(named('alpha'));
    expect(await allPages(h.client.asTenant(ALPHA), 2, { state: 'absent' })).to.deep.equal([]);
    // The default tenant's names are those recorded without a tenant: none here.
    expect(await allPages(h.client, 2, { tenant: 'default' })).to.deep.equal([]);
  });

  it("a non-admin naming another tenant in its listing is told the field; a bad tenant name is a ValidationError too", async () => {
    const err = await refusal(h.client.asTenant(ALPHA).listVms({ tenant: 'beta' }));
    expect(err).to.be.instanceOf(ValidationError);
    expect((err as ValidationError).fields).to.deep.equal([{ field: 'tenant', message: "only an admin token may list another tenant's names" }]);
    const bad = await refusal(h.client.listVms({ tenant: 'Not A Tenant' }));
    expect((bad as ValidationError).fields.map((f) => f.field)).to.deep.equal(['tenant']);
  });

  it('a name a new owner takes leaves the old owner\'s listing at once', async () => {
    await createOwned('moved-1', 'alpha');
    expect(await allPages(h.client, 10, { tenant: 'alpha' })).to.deep.equal(['moved-1']);
    await h.redis.hset(keys.desired(h.prefix, 'moved-1'), 'tenant', 'beta');
    await registry.recordLastKnown('moved-1', { state: 'running', node: 'pve1', at: new Date().toISOString() });
    // Nothing stale left behind in the old owner's set for its pages to skip.
    expect(await h.redis.zcard(`${keys.desiredBy(h.prefix)}:tenant:alpha`)).to.equal(0);
    expect(await allPages(h.client, 10, { tenant: 'alpha' })).to.deep.equal([]);
    expect(await allPages(h.client, 10, { tenant: 'beta' })).to.deep.equal(['moved-1']);
  });

  it("a name whose owner changed with no reindex is filed under its owner by the first page of its old owner's that reads it", async () => {
    await createOwned('stale-1', 'alpha');
    // The index is built (the first page builds it) before the owner changes.
    expect(await allPages(h.client, 10, { tenant: 'alpha' })).to.deep.equal(['stale-1']);
    await h.redis.hset(keys.desired(h.prefix, 'stale-1'), 'tenant', 'beta');
    expect(await allPages(h.client, 10, { tenant: 'alpha' })).to.deep.equal([]);
    expect(await allPages(h.client, 10, { tenant: 'beta' })).to.deep.equal(['stale-1']);
  });

  it("an index built before tenants is built again once, then lists each tenant's names", async () => {
    await createOwned('old-1', 'alpha');
    await createOwned('old-2', 'beta');
    const stem = keys.desiredBy(h.prefix);
    // As an older release left it: built (its mark set), no tenant's sets.
    await h.redis.del(`${stem}:tenants-built`, `${stem}:tenant:alpha`, `${stem}:tenant:beta`, `${stem}:tenant-of`);
    await h.redis.set(stem, '1');
    expect(await allPages(h.client.asTenant(BETA), 10)).to.deep.equal(['old-2']);
    expect(await allPages(h.client.asTenant(ALPHA), 10)).to.deep.equal(['old-1']);
  });

  it("a tenant neither checks, renews nor sees the jobs of another's names: not found", async () => {
    await createOwned('alpha-1', 'alpha');
    await createOwned('beta-1', 'beta');
    const alpha = h.client.asTenant(ALPHA);
    const beta = h.client.asTenant(BETA);
    expect(await refusal(alpha.checkVm({ name: 'beta-1' }))).to.be.instanceOf(NameNotFoundError);
    expect(await refusal(alpha.enqueueJob('check', { name: 'beta-1' }))).to.be.instanceOf(NameNotFoundError);
    expect(await refusal(alpha.checkVm({ name: 'never-made' }))).to.be.instanceOf(NameNotFoundError);
    expect(await refusal(alpha.renewLease('beta-1', { ttlSeconds: 600 }))).to.be.instanceOf(NameNotFoundError);
    expect((await h.client.getVm('beta-1'))?.expiresAt).to.equal(undefined);

    const { jobId } = await alpha.checkVm({ name: 'alpha-1' });
    expect((await alpha.getJob(jobId))?.data).to.include({ name: 'alpha-1', tenant: 'alpha' });
    expect(await beta.getJob(jobId)).to.equal(undefined);
    expect((await h.client.getJob(jobId))?.id).to.equal(jobId);
    const waited = await refusal(beta.waitForJob(jobId, { timeoutMs: 10 }));
    expect((waited as Error).message).to.equal(`job ${jobId} does not exist`);
    // An admin's check of a tenant's name is that tenant's job: it sees it too.
    const byAdmin = await h.client.checkVm({ name: 'beta-1' });
    expect((await beta.getJob(byAdmin.jobId))?.data).to.include({ tenant: 'beta' });
    expect(await alpha.getJob(byAdmin.jobId)).to.equal(undefined);
    expect((await alpha.renewLease('alpha-1', { ttlSeconds: 600 })).name).to.equal('alpha-1');
  });

  it('a read scope creates, deletes, checks and renews nothing: a ScopeError before anything is touched', async () => {
    await createOwned('alpha-1', 'alpha');
    const reader = h.client.asTenant({ ...ALPHA, scope: 'read' });
    const before = await h.queues.vm.getJobCounts('waiting', 'delayed');
    for (const call of [
      reader.createVm({ name: 'alpha-2' }),
      reader.deleteVm({ name: 'alpha-1' }),
      reader.checkVm({ name: 'alpha-1' }),
      reader.enqueueJob('check', { name: 'alpha-1' }),
      reader.renewLease('alpha-1', { ttlSeconds: 600 }),
      // Not even bad input is read.
      reader.createVm({ nonsense: true }),
    ]) {
      const err = await refusal(call);
      expect(err).to.be.instanceOf(ScopeError);
      expect(err).to.include({ tenant: 'alpha', scope: 'read' });
    }
    expect(await h.queues.vm.getJobCounts('waiting', 'delayed')).to.deep.equal(before);
    expect(await h.client.getVm('alpha-2')).to.equal(undefined);
    expect((await h.client.getVm('alpha-1'))?.state).to.equal('present');
    // It reads its own.
    expect((await reader.getVm('alpha-1'))?.name).to.equal('alpha-1');
    expect(await allPages(reader, 10)).to.deep.equal(['alpha-1']);
  });

  it("tenantUsage shows the tenant's scope, quotas and holdings; listTenantUsage is an admin's, of every tenant known or holding", async () => {
    const use = keys.tenantUse(h.prefix);
    await h.redis.hset(use, 'alpha vms', 2, 'alpha cores', 4, 'beta vms', 1, 'beta memoryMiB', 2048);
    expect(await h.client.asTenant(ALPHA).tenantUsage()).to.deep.equal({ tenant: 'alpha', scope: 'write', quotas: { vms: 5 }, usage: { vms: 2, cores: 4, memoryMiB: 0, diskGiB: 0 } });
    const gamma: Tenant = { name: 'gamma', scope: 'read', quotas: { cores: 8 } };
    expect(await h.client.listTenantUsage([gamma, ALPHA, { ...ALPHA, scope: 'read' }])).to.deep.equal([
      { tenant: 'alpha', quotas: { vms: 5 }, usage: { vms: 2, cores: 4, memoryMiB: 0, diskGiB: 0 } },
      { tenant: 'beta', quotas: {}, usage: { vms: 1, cores: 0, memoryMiB: 2048, diskGiB: 0 } },
      { tenant: 'gamma', quotas: { cores: 8 }, usage: { vms: 0, cores: 0, memoryMiB: 0, diskGiB: 0 } },
    ]);
    const err = await refusal(h.client.asTenant(ALPHA).listTenantUsage([]));
    expect(err).to.be.instanceOf(ScopeError);
    expect((err as Error).message).to.equal("tenant alpha's token has the write scope, which may not list every tenant's usage");
  });

  it("a client given a tenant is that tenant's, with the write scope unless told; a bad tenant name is a ProducerConfigError", async () => {
    await createOwned('alpha-1', 'alpha');
    await createOwned('beta-1', 'beta');
    const own = createProvisionerClient({ redisUrl: REDIS_URL, redis: h.config.redis, prefix: h.config.redis.prefix, config: h.config, tenant: { name: 'beta' } });
    try {
      expect(await own.getVm('alpha-1')).to.equal(undefined);
      expect((await own.tenantUsage()).scope).to.equal('write');
      expect(await allPages(own, 10)).to.deep.equal(['beta-1']);
    } finally {
      await own.close();
    }
    expect(() => createProvisionerClient({ redisUrl: REDIS_URL, prefix: 'x', tenant: { name: 'Bad Name' } })).to.throw(ProducerConfigError, /tenant\.name/);
    expect(() => createProvisionerClient({ redisUrl: REDIS_URL, prefix: 'x', tenant: { name: 'alpha', quotas: { cores: 0 } } })).to.throw(ProducerConfigError, 'tenant.quotas.cores is 0; it must be a positive integer');
    expect(() => createProvisionerClient({ redisUrl: REDIS_URL, prefix: 'x', tenant: { name: 'alpha', scope: 'root' as never } })).to.throw(ProducerConfigError, /tenant\.scope/);
    // The default tenant is the operator's: admin, no quotas (as a plain line of the tokens file).
    expect(() => createProvisionerClient({ redisUrl: REDIS_URL, prefix: 'x', tenant: { name: 'default', scope: 'read' } })).to.throw(ProducerConfigError, /tenant default is the operator's/);
    expect(() => createProvisionerClient({ redisUrl: REDIS_URL, prefix: 'x', tenant: { name: 'default', quotas: { vms: 1 } } })).to.throw(ProducerConfigError, /tenant default is the operator's/);
  });
});
