// SPEC 32 (issue 34): a delete runs in the cluster its name's VM was in
// when the delete was recorded. A deleted name may be created again in
// another cluster (naming it) before its delete has run (its cluster away,
// or the queue long); the delete of the old uid is not superseded by that
// create (jobs/delete.ts), so routed by the record as it is then it would
// look in the new cluster, find nothing, and end the old uid's address
// lease and quota hold while its VM still runs in the old cluster.
import type { Job } from 'bullmq';
import { expect } from 'chai';
import { buildJobRegistry, jobDefinitions } from '../../jobs/index.js';
import type { AnyJobDefinition } from '../../jobs/types.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import { expireLease } from '../../src/queue/lease-expiry.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { TenantHoldStore } from '../../src/tenants/hold-store.js';
import { recordedClusterOf } from '../../src/worker/job-cluster.js';
import { tenantHoldDeps } from '../../src/worker/tenant-hold-deps.js';
import { holdJson } from '../support/tenant-holds.js';
import { createProcessor, type JobProcessor } from '../../src/worker/processor.js';
import { createHarness, type Harness } from '../support/harness.js';
import { testJobDeps } from '../support/processor-deps.js';

const DEBIAN = { name: 'debian', templates: { pve1: 9001, pve2: 9002 } };
const TWO_CLUSTERS = [
  { name: 'east', url: 'sim', images: [DEBIAN] },
  { name: 'west', url: 'sim', images: [DEBIAN] },
];

/** The job definitions with delete's handler replaced by one that notes ctx.cluster. */
function noting(seen: (string | undefined)[]): AnyJobDefinition[] {
  return jobDefinitions.map((definition) =>
    definition.name === 'delete'
      ? {
          ...definition,
          handler: (_data, _deps, ctx) => {
            seen.push(ctx.cluster);
            return Promise.resolve({ deleted: false, seedsDeleted: 0 });
          },
        }
      : definition,
  );
}

describe('a delete runs in the cluster its VM was in when it was recorded (SPEC 32)', function () {
  let h: Harness;
  let registry: DesiredStateRegistry;
  let run: JobProcessor;
  const seen: (string | undefined)[] = [];

  beforeEach(() => {
    seen.length = 0;
    h = createHarness('delete-cluster', { config: { proxmox: { clusters: TWO_CLUSTERS } } });
    const locks = new NameLocks(h.redis, h.prefix);
    registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    const deps = testJobDeps(h.provider, registry, locks);
    run = createProcessor({ definitions: buildJobRegistry(noting(seen)), deps, limits: limitsFromConfig(h.config), registry, locks, lockTtlMs: 5000, recordedCluster: recordedClusterOf(registry) });
  });
  afterEach(async () => {
    await h.close();
  });

  async function queued(jobId: string): Promise<Job> {
    const job = await h.queues.vm.getJob(jobId);
    if (!job) throw new Error(`job ${jobId} is missing`);
    return job;
  }

  it("a caller's delete of a uid, the name created again in another cluster before it ran", async () => {
    await h.client.createVm({ name: 'moved-1', uid: 'u-1', cluster: 'west' });
    const deleted = await h.client.deleteVm({ name: 'moved-1', uid: 'u-1' });
    await h.client.createVm({ name: 'moved-1', uid: 'u-2', cluster: 'east' });
    expect((await queued(deleted.jobId)).data).to.include({ cluster: 'west' });
    await run(await queued(deleted.jobId), 'token');
    expect(seen).to.deep.equal(['west']);
  });

  it("a lease's delete, the name created again in another cluster before it ran", async () => {
    await h.client.createVm({ name: 'moved-2', uid: 'u-1', cluster: 'west' });
    const due = new Date('2026-12-01T10:00:00.000Z');
    await h.redis.hset(keys.desired(h.prefix, 'moved-2'), 'lease', JSON.stringify({ expiresAt: due.toISOString(), onExpiry: 'delete', version: 1 }));
    const outcome = await expireLease({ door: jobDoor(h.queues, limitsFromConfig(h.config)), registry, now: () => due }, 'moved-2', 1);
    if (outcome.kind !== 'recorded') throw new Error(`the lease did not expire: ${outcome.kind}`);
    await h.client.createVm({ name: 'moved-2', uid: 'u-2', cluster: 'east' });
    await run(await queued(outcome.jobId), 'token');
    expect(seen).to.deep.equal(['west']);
  });

  it('the one-cluster form puts no cluster on a delete', async () => {
    await h.close();
    h = createHarness('delete-cluster-one');
    await h.client.createVm({ name: 'plain-1', uid: 'u-1' });
    const deleted = await h.client.deleteVm({ name: 'plain-1', uid: 'u-1' });
    expect((await queued(deleted.jobId)).data).not.to.have.property('cluster');
  });
});

describe('a name created again in another cluster leaves its old uids to their own cluster (SPEC 32)', function () {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it("a later delete without a uid in the new cluster ends no hold (nor address lease) of the old cluster's uid", async () => {
    h = createHarness('delete-cluster-retired', { config: { proxmox: { clusters: TWO_CLUSTERS } } });
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await h.client.createVm({ name: 'moved-3', uid: 'u-1', cluster: 'west' });
    // Deleted while west is away: its delete waits there (a delete without a uid is superseded by the create below).
    await h.client.deleteVm({ name: 'moved-3' });
    await h.client.createVm({ name: 'moved-3', uid: 'u-2', cluster: 'east' });
    await h.client.deleteVm({ name: 'moved-3' });
    // What east's delete job does once its VM is gone (jobs/delete.ts): the holds of every uid the name had there.
    await tenantHoldDeps(new TenantHoldStore(h.redis, h.prefix), registry).vmGone('moved-3', undefined);
    expect(await holdJson(h.redis, h.prefix, 'moved-3', 'u-2'), "east's VM is gone").to.equal(null);
    expect(await holdJson(h.redis, h.prefix, 'moved-3', 'u-1'), "west's VM may still be there").to.not.equal(null);
  });

  it('a name created again in its own cluster retires its old uid as before', async () => {
    h = createHarness('delete-cluster-same', { config: { proxmox: { clusters: TWO_CLUSTERS } } });
    const registry = new DesiredStateRegistry(h.redis, h.prefix, 60);
    await h.client.createVm({ name: 'stays-1', uid: 'u-1', cluster: 'west' });
    await h.client.deleteVm({ name: 'stays-1' });
    await h.client.createVm({ name: 'stays-1', uid: 'u-2' });
    expect((await registry.get('stays-1'))?.retiredUids).to.deep.equal(['u-1']);
  });
});
