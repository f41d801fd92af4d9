// SPEC 32 (issue 34): names by cluster in the views. The listing filters
// by `cluster` (a configured one; the error names the field), reading the
// cluster's own set of the listing index, a record with no cluster (one
// written in the one-cluster form) being the first cluster's; a view
// shows the cluster and, while the last health finds that cluster away,
// its VM Unknown with clusterAway. The one-cluster form's views are as
// before, and `cluster=default` there lists every name.
import { expect } from 'chai';
import { createUncheckedProvisionerClient, ValidationError } from '../../src/client.js';
import type { DesiredView } from '../../src/client.js';
import type { NodeHealth } from '../../src/provider/types.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { createHarness, type Harness } from '../support/harness.js';
import { CAN_MONITOR, monitorPrefix } from '../support/redis-monitor.js';
import { REDIS_URL } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

const CLUSTERS = [
  { name: 'east', url: 'sim' },
  { name: 'west', url: 'sim' },
];

const names = (vms: DesiredView[]): string[] => vms.map((vm) => vm.name);
const seen = { state: 'Running', node: 'pve1', vmid: 100, at: new Date().toISOString() };

function unreachable(cluster: string, node: string): NodeHealth {
  return { node, cluster, ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 127.0.0.1:8006' }] };
}

describe('names by cluster in the listing and the views (SPEC 32)', function () {
  let h: Harness;
  let registry: DesiredStateRegistry;
  beforeEach(async () => {
    h = createHarness('cluster-listing', { config: { proxmox: { clusters: CLUSTERS } } });
    registry = new DesiredStateRegistry(h.redis, h.prefix, 3600);
    // A record from the one-cluster form, before the clusters were configured: the first cluster's.
    await registry.recordPresent('a-before', 'u-before', { name: 'a-before' });
    for (const [name, cluster] of [['b-east', 'east'], ['c-west', 'west'], ['d-east', 'east'], ['e-west', 'west'], ['f-east', 'east']] as const) {
      await h.client.createVm({ name, cluster });
    }
  });
  afterEach(async () => {
    await h.close();
  });

  it('lists the names of one cluster, a record naming none in the first, page by page and with the other filters', async () => {
    const east = await h.client.listVms({ cluster: 'east' });
    expect(names(east.vms)).to.deep.equal(['a-before', 'b-east', 'd-east', 'f-east']);
    expect(east.vms.map((vm) => vm.cluster)).to.deep.equal(['east', 'east', 'east', 'east']);
    expect(names((await h.client.listVms({ cluster: 'west' })).vms)).to.deep.equal(['c-west', 'e-west']);
    const first = await h.client.listVms({ cluster: 'east', limit: 3 });
    expect(names(first.vms)).to.deep.equal(['a-before', 'b-east', 'd-east']);
    const next = await h.client.listVms({ cluster: 'east', limit: 3, cursor: first.nextCursor ?? '' });
    expect(names(next.vms)).to.deep.equal(['f-east']);
    expect(next.nextCursor).to.equal(null);
    await h.client.deleteVm({ name: 'd-east' });
    expect(names((await h.client.listVms({ cluster: 'east', state: 'absent' })).vms)).to.deep.equal(['d-east']);
    expect(names((await h.client.listVms({ cluster: 'west', state: 'absent' })).vms)).to.deep.equal([]);
    await registry.recordLastKnown('e-west', seen);
    expect(names((await h.client.listVms({ cluster: 'west', node: 'pve1' })).vms)).to.deep.equal(['e-west']);
    expect(names((await h.client.listVms({ node: 'pve1' })).vms), 'no cluster: every one').to.deep.equal(['e-west']);
    expect(names((await h.client.listVms({ cluster: 'west', tenant: 'default' })).vms), "a tenant's set, the cluster filtered").to.deep.equal(['c-west', 'e-west']);
  });

  it('refuses a cluster that is not configured, or no cluster name, naming cluster', async () => {
    for (const cluster of ['north', 'Not A Name', 7]) {
      const err = await rejection(h.client.listVms({ cluster } as never));
      expect(err, String(cluster)).to.be.instanceOf(ValidationError);
      expect((err as ValidationError).fields.map((f) => f.field)).to.deep.equal(['cluster']);
    }
  });

  it('files the names again when the first cluster changes: a record naming none follows it', async () => {
    await h.client.listVms({ cluster: 'east' });
    const reordered = createUncheckedProvisionerClient({ redisUrl: REDIS_URL, redis: h.config.redis, prefix: h.config.redis.prefix, config: { ...h.config, proxmox: { ...h.config.proxmox, clusters: [...(h.config.proxmox.clusters ?? [])].reverse() } } });
    try {
      expect(names((await reordered.listVms({ cluster: 'west' })).vms)).to.deep.equal(['a-before', 'c-west', 'e-west']);
      expect(names((await reordered.listVms({ cluster: 'east' })).vms)).to.deep.equal(['b-east', 'd-east', 'f-east']);
    } finally {
      await reordered.close();
    }
  });

  it("shows each name's cluster, and its VM Unknown with clusterAway while the last health finds that cluster away", async () => {
    await registry.recordLastKnown('c-west', seen);
    await registry.recordLastKnown('b-east', seen);
    expect(await h.client.getVm('c-west')).to.deep.include({ cluster: 'west', lastKnown: seen });
    expect(await h.client.getVm('c-west')).not.to.have.property('clusterAway');
    await writeLastHealth(h.redis, h.prefix, [{ node: 'pve1', cluster: 'east', ok: true, reasons: [], freeMemoryMiB: 100 }, unreachable('west', 'pve1'), unreachable('west', 'pve2')]);
    expect(await h.client.getVm('c-west')).to.deep.include({ cluster: 'west', clusterAway: true, lastKnown: { ...seen, state: 'Unknown' } });
    expect(await h.client.getVm('e-west'), 'never seen: no lastKnown made up').to.deep.include({ cluster: 'west', clusterAway: true }).and.not.to.have.property('lastKnown');
    expect(await h.client.getVm('b-east')).to.deep.include({ cluster: 'east', lastKnown: seen });
    const listed = (await h.client.listVms()).vms;
    expect(listed.filter((vm) => vm.clusterAway === true).map((vm) => vm.name)).to.deep.equal(['c-west', 'e-west']);
    expect(listed.find((vm) => vm.name === 'c-west')?.lastKnown?.state).to.equal('Unknown');
    expect(listed.find((vm) => vm.name === 'a-before')).to.include({ cluster: 'east' });
    // Back: as it was seen.
    await writeLastHealth(h.redis, h.prefix, [{ node: 'pve1', cluster: 'west', ok: true, reasons: [], freeMemoryMiB: 100 }]);
    expect(await h.client.getVm('c-west')).to.deep.include({ cluster: 'west', lastKnown: seen }).and.not.to.have.property('clusterAway');
  });
});

describe("the listing index's sets per cluster (SPEC 32, 27)", function () {
  this.timeout(120_000);
  let h: Harness;
  let registry: DesiredStateRegistry;
  beforeEach(() => {
    h = createHarness('cluster-index', { config: { proxmox: { clusters: CLUSTERS } } });
    registry = new DesiredStateRegistry(h.redis, h.prefix, 3600);
  });
  afterEach(async () => {
    await h.close();
  });

  const record = (name: string, cluster: string): Promise<unknown> => registry.recordPresent(name, `u-${name}`, { name, cluster });

  it("a page of 1 of a cluster with one name among a thousand of another's runs a handful of Redis commands", async function () {
    if (!CAN_MONITOR) this.skip();
    for (let i = 0; i < 1000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => record(`east-${String(i + j).padStart(4, '0')}`, 'east')));
    await record('zz-west', 'west');
    // The first page may build the index; what is measured is a page after it.
    await registry.page({ limit: 1, cluster: 'west', firstCluster: 'east' });
    const monitor = await monitorPrefix(h.prefix);
    try {
      const page = await registry.page({ limit: 1, cluster: 'west', firstCluster: 'east' });
      await monitor.settle();
      expect(page.records.map((r) => r.name)).to.deep.equal(['zz-west']);
      expect(monitor.commands().length, monitor.commands().join(', ')).to.be.at.most(20);
    } finally {
      monitor.close();
    }
  });

  it("moves a name deleted and created again in another cluster to that cluster's set, and forgets an expired tombstone in its cluster's set", async () => {
    await registry.page({ limit: 1, cluster: 'east', firstCluster: 'east' });
    await record('moved', 'east');
    await record('gone', 'west');
    await registry.recordAbsent('moved', 'u-moved');
    await registry.recordPresent('moved', 'u-moved-2', { name: 'moved', cluster: 'west' });
    const set = (cluster: string): Promise<string[]> => h.redis.zrange(`${keys.desiredBy(h.prefix)}:cluster:${cluster}`, 0, -1);
    expect(await set('east')).to.deep.equal([]);
    expect(await set('west')).to.deep.equal(['gone', 'moved']);
    await registry.recordAbsent('gone', 'u-gone');
    await h.redis.del(keys.desired(h.prefix, 'gone'));
    await registry.list();
    expect(await set('west')).to.deep.equal(['moved']);
  });
});

describe('the one-cluster form in the listing and the views (SPEC 32)', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('shows no cluster, lists every name under cluster=default, refuses another', async () => {
    h = createHarness('one-listing');
    await h.client.createVm({ name: 'one-a' });
    await h.client.createVm({ name: 'one-b' });
    await writeLastHealth(h.redis, h.prefix, [unreachable('default', 'pve1'), unreachable('default', 'pve2')]);
    const vm = await h.client.getVm('one-a');
    expect(vm).not.to.have.property('cluster');
    expect(vm).not.to.have.property('clusterAway');
    expect(names((await h.client.listVms({ cluster: 'default' })).vms)).to.deep.equal(['one-a', 'one-b']);
    const err = await rejection(h.client.listVms({ cluster: 'east' }));
    expect((err as ValidationError).fields).to.deep.equal([{ field: 'cluster', message: 'must be a configured cluster: default' }]);
  });
});
