// SPEC 32 (issue 34): where the door places a create among several
// clusters, through the producer library on the real Redis. Unnamed, a
// create goes to a cluster serving its image that the last health did
// not find away, the one with most free memory on those nodes, then the
// configured order; named, to that cluster; a repeat (present or
// deleted) to its record's. A create naming another cluster than the
// present name's is a SpecConflictError naming `cluster`. The record and
// the job carry the cluster; the one-cluster form records none.
import { expect } from 'chai';
import { SpecConflictError, ValidationError } from '../../src/client.js';
import type { NodeHealth } from '../../src/provider/types.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { keys } from '../../src/redis-keys.js';
import { createHarness, type Harness } from '../support/harness.js';
import { rejection } from '../support/rejection.js';

const DEBIAN = { name: 'debian', templates: { pve1: 9001, pve2: 9002 } };
/** Served by west alone. */
const ALPINE = { name: 'alpine', templates: { pve2: 9100 } };
const TWO_CLUSTERS = [
  { name: 'east', url: 'sim', images: [DEBIAN] },
  { name: 'west', url: 'sim', images: [DEBIAN, ALPINE] },
];

/** A node of `cluster` fit to take VMs, with `free` MiB free. */
function up(cluster: string, node: string, free: number): NodeHealth {
  return { node, cluster, ok: true, reasons: [], freeMemoryMiB: free };
}

/** A node of `cluster` that did not answer. */
function unreachable(cluster: string, node: string): NodeHealth {
  return { node, cluster, ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 127.0.0.1:8006' }] };
}

async function jobCluster(h: Harness, jobId: string): Promise<unknown> {
  return ((await h.queues.vm.getJob(jobId))?.data as { cluster?: unknown } | undefined)?.cluster;
}

describe('placement among several clusters at the door (SPEC 32)', function () {
  let h: Harness;
  beforeEach(() => {
    h = createHarness('placement', { config: { proxmox: { clusters: TWO_CLUSTERS } } });
  });
  afterEach(async () => {
    await h.close();
  });

  const health = (nodes: NodeHealth[]): Promise<void> => writeLastHealth(h.redis, h.prefix, nodes);

  it('places by free memory on the nodes serving the image, then by the configured order; the record and the job carry the cluster', async () => {
    await health([up('east', 'pve1', 1000), up('east', 'pve2', 1000), up('west', 'pve1', 4000), up('west', 'pve2', 500)]);
    const roomy = await h.client.createVm({ name: 'roomy-1' });
    expect((await h.client.getVm('roomy-1'))?.cluster).to.equal('west');
    expect(await jobCluster(h, roomy.jobId)).to.equal('west');
    expect(JSON.parse((await h.redis.hget(keys.desired(h.prefix, 'roomy-1'), 'spec')) ?? '{}')).to.include({ cluster: 'west' });
    await health([up('east', 'pve1', 3000), up('east', 'pve2', 3000), up('west', 'pve1', 4000), up('west', 'pve2', 500)]);
    await h.client.createVm({ name: 'roomy-2' });
    expect((await h.client.getVm('roomy-2'))?.cluster, 'east has 6000 MiB, west 4500').to.equal('east');
    await health([up('east', 'pve1', 1000), up('west', 'pve1', 1000)]);
    await h.client.createVm({ name: 'tie-1' });
    expect((await h.client.getVm('tie-1'))?.cluster, 'equal: the configured order').to.equal('east');
  });

  it('places by the configured order before any health result', async () => {
    await h.client.createVm({ name: 'early-1' });
    expect((await h.client.getVm('early-1'))?.cluster).to.equal('east');
  });

  it('skips a cluster the last health found away, however much memory it had; every one away: the first serving one', async () => {
    await health([up('east', 'pve1', 100), unreachable('west', 'pve1'), unreachable('west', 'pve2')]);
    await h.client.createVm({ name: 'skip-1' });
    expect((await h.client.getVm('skip-1'))?.cluster).to.equal('east');
    // West up with no free memory said (a worker from before clusters): still not east, first in order but away.
    await health([unreachable('east', 'pve1'), unreachable('east', 'pve2'), { node: 'pve1', cluster: 'west', ok: true, reasons: [] }]);
    await h.client.createVm({ name: 'skip-2' });
    expect((await h.client.getVm('skip-2'))?.cluster).to.equal('west');
    await health([unreachable('east', 'pve1'), unreachable('west', 'pve1')]);
    await h.client.createVm({ name: 'skip-3' });
    expect((await h.client.getVm('skip-3'))?.cluster, 'all away: the first, where it waits').to.equal('east');
  });

  it('places an image one cluster serves in that cluster, and refuses it in another, naming image and the cluster', async () => {
    await health([up('east', 'pve1', 9000), up('east', 'pve2', 9000), up('west', 'pve2', 10)]);
    await h.client.createVm({ name: 'alpine-1', image: 'alpine' });
    expect((await h.client.getVm('alpine-1'))?.cluster).to.equal('west');
    const err = await rejection(h.client.createVm({ name: 'alpine-2', image: 'alpine', cluster: 'east' }));
    expect(err).to.be.instanceOf(ValidationError);
    expect((err as ValidationError).fields).to.deep.equal([{ field: 'image', message: 'alpine is not an image of cluster east (its images: debian)' }]);
    expect(await h.client.getVm('alpine-2'), 'nothing recorded').to.equal(undefined);
  });

  it('honours a named cluster whatever the health says', async () => {
    await health([up('east', 'pve1', 9000), unreachable('west', 'pve1'), unreachable('west', 'pve2')]);
    const named = await h.client.createVm({ name: 'named-1', cluster: 'west' });
    expect((await h.client.getVm('named-1'))?.cluster).to.equal('west');
    expect(await jobCluster(h, named.jobId)).to.equal('west');
    const unknown = await rejection(h.client.createVm({ name: 'named-2', cluster: 'north' }));
    expect((unknown as ValidationError).fields.map((f) => f.field)).to.deep.equal(['cluster']);
  });

  it("sends a repeat to the record's cluster, also after a delete, wherever placement would put a new name now", async () => {
    await health([up('east', 'pve1', 10), up('west', 'pve1', 9000)]);
    const first = await h.client.createVm({ name: 'again-1', uid: 'u-1' });
    expect((await h.client.getVm('again-1'))?.cluster).to.equal('west');
    await health([up('east', 'pve1', 9000), up('west', 'pve1', 10)]);
    const repeat = await h.client.createVm({ name: 'again-1', uid: 'u-1' });
    expect(repeat).to.deep.equal({ ...first, existing: true });
    const grown = await h.client.createVm({ name: 'again-1', uid: 'u-1', cores: 4 });
    expect(grown.changes).to.deep.equal(['cores']);
    expect(await jobCluster(h, grown.jobId), 'an in-place change stays').to.equal('west');
    await h.client.deleteVm({ name: 'again-1' });
    expect(await h.redis.hget(keys.desired(h.prefix, 'again-1'), 'cluster'), 'the tombstone keeps its cluster').to.equal('west');
    expect((await h.client.getVm('again-1'))?.cluster).to.equal('west');
    const recreated = await h.client.createVm({ name: 'again-1', uid: 'u-2' });
    expect(await jobCluster(h, recreated.jobId)).to.equal('west');
    // A deleted name may be created again in another cluster when the create names it.
    await h.client.deleteVm({ name: 'again-1' });
    await h.client.createVm({ name: 'again-1', uid: 'u-3', cluster: 'east' });
    expect((await h.client.getVm('again-1'))?.cluster).to.equal('east');
  });

  it('refuses a create naming another cluster than the present name\'s with a SpecConflictError naming cluster, recording nothing', async () => {
    const first = await h.client.createVm({ name: 'here-1', uid: 'u-1', cluster: 'west' });
    const err = await rejection(h.client.createVm({ name: 'here-1', uid: 'u-1', cluster: 'east' }));
    expect(err).to.be.instanceOf(SpecConflictError);
    expect((err as SpecConflictError).fields).to.deep.equal(['cluster']);
    const noUid = await rejection(h.client.createVm({ name: 'here-1', cluster: 'east', cores: 4 }));
    expect((noUid as SpecConflictError).fields, 'an in-place field beside it is no change').to.deep.equal(['cluster']);
    expect((await h.client.getVm('here-1'))?.generation).to.equal(first.generation);
    expect(await h.client.createVm({ name: 'here-1', uid: 'u-1', cluster: 'west' })).to.include({ existing: true, jobId: first.jobId });
  });

  it("takes the create's cluster's own default image when the create names none", async () => {
    await h.close();
    h = createHarness('placement-default', {
      config: { proxmox: { clusters: [{ name: 'east', url: 'sim', images: [DEBIAN] }, { name: 'west', url: 'sim', images: [ALPINE, DEBIAN] }] } },
    });
    await h.client.createVm({ name: 'plain-1', cluster: 'west' });
    expect((await h.client.getVm('plain-1'))?.spec?.image).to.equal('alpine');
    expect(await h.client.createVm({ name: 'plain-1' }), "a repeat: the record's cluster's default again").to.include({ existing: true });
    await h.client.createVm({ name: 'plain-2' });
    expect((await h.client.getVm('plain-2'))?.spec?.image).to.equal('debian');
  });
});

describe('the one-cluster form at the door (SPEC 32)', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('records and enqueues no cluster, takes `default` as the one cluster, refuses any other naming cluster', async () => {
    h = createHarness('one-cluster');
    const plain = await h.client.createVm({ name: 'one-1' });
    const named = await h.client.createVm({ name: 'one-2', cluster: 'default' });
    for (const [name, jobId] of [['one-1', plain.jobId], ['one-2', named.jobId]] as const) {
      expect(await jobCluster(h, jobId)).to.equal(undefined);
      expect(await h.redis.hget(keys.desired(h.prefix, name), 'cluster')).to.equal(null);
      expect(await h.client.getVm(name)).not.to.have.property('cluster');
      expect((await h.client.getVm(name))?.spec).not.to.have.property('cluster');
    }
    const other = await rejection(h.client.createVm({ name: 'one-3', cluster: 'east' }));
    expect((other as ValidationError).fields.map((f) => f.field)).to.deep.equal(['cluster']);
  });
});
