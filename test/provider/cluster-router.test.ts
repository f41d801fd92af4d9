// SPEC 32 (issue 34): the provider of several clusters routes each
// operation to its context's cluster (none named: the first), refuses an
// unknown cluster Permanent naming it, and asks every cluster's health at
// once: each entry names its cluster, and a cluster whose check fails
// whole shows its configured nodes Unreachable with the error.
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import { clusterRoutedProvider, type RoutedCluster } from '../../src/provider/cluster-router.js';
import { parseMark } from '../../src/provider/mark.js';
import type { CreateSpec, Provider } from '../../src/provider/types.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { rejection } from '../support/rejection.js';
import { addOurVm, clusterView, harness, testConfig, type Harness } from './harness.js';

const UID = 'b7e1c0de-0000-4000-8000-0000000000aa';
const NAMES = ['east', 'west'];
const BASE = testConfig([
  { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' },
  { name: 'pv1-2', template: 9002, isoStorage: 'proxy-seeds' },
]);

function spec(name: string): CreateSpec {
  return { name, uid: UID, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: false };
}

interface Two {
  east: Harness;
  west: Harness;
  router: Provider;
  clusters: RoutedCluster[];
}

/** Two clusters, each its own Proxmox (nodes pv1-1 and pv1-2 on both), east the first. */
function two(westHealth?: Provider['health']): Two {
  const nodes = [{ name: 'pv1-1' }, { name: 'pv1-2' }];
  const east = harness({ pve: new FakeProxmox({ nodes }), config: clusterView('east', NAMES, BASE) });
  const west = harness({ pve: new FakeProxmox({ nodes }), config: clusterView('west', NAMES, BASE) });
  const clusters = NAMES.map((name) => {
    const { proxmox } = clusterView(name, NAMES, BASE);
    return { name, nodes: proxmox.nodes, images: proxmox.images, defaultImage: proxmox.defaultImage };
  });
  const westProvider = westHealth === undefined ? west.provider : { ...west.provider, health: westHealth };
  const router = clusterRoutedProvider(new Map([['east', east.provider], ['west', westProvider]]), 'east', clusters);
  return { east, west, router, clusters };
}

describe('the provider of several clusters routes by the context (SPEC 32)', () => {
  it("an operation goes to its context's cluster, and to the first cluster when the context names none", async () => {
    const { east, west, router } = two();
    const made = await router.create(spec('on-west'), { ...west.ctx, cluster: 'west' });
    expect(west.pve.vm(made.vmid)?.config.name).to.equal('on-west');
    expect(parseMark(west.pve.vm(made.vmid)?.config.description)?.cluster).to.equal('west');
    expect(east.pve.count('clone')).to.equal(0);

    const check = await router.get({ name: 'on-west', uid: UID }, east.ctx);
    expect(check).to.deep.equal({ state: 'NotFound' });
    expect((await router.get({ name: 'on-west', uid: UID }, { ...west.ctx, cluster: 'west' })).state).to.not.equal('NotFound');
  });

  it('a name with no cluster is looked up on the first cluster', async () => {
    const { east, router } = two();
    addOurVm(east.pve, 'old', UID);
    const found = await router.findByName('old', east.ctx);
    expect(found.map((vm) => [vm.name, vm.ours])).to.deep.equal([['old', true]]);
  });

  it('listing and deletes follow the context too', async () => {
    const { east, west, router } = two();
    addOurVm(west.pve, 'w', UID, { config: { tags: 'pve_provisioner;pve_provisioner-cluster-west' } });
    expect((await router.listByTag({ ...west.ctx, cluster: 'west' })).map((vm) => vm.name)).to.deep.equal(['w']);
    expect(await router.listByTag(east.ctx)).to.deep.equal([]);
    const deleted = await router.delete({ name: 'w', uid: UID }, { ...west.ctx, cluster: 'west' });
    expect(deleted.deleted).to.equal(true);
    expect(east.pve.count('destroy')).to.equal(0);
  });

  it('a context naming a cluster that is not configured fails Permanent, naming it, and calls no Proxmox', async () => {
    const { east, west, router } = two();
    const err = await rejection(router.create(spec('x'), { ...east.ctx, cluster: 'north' }));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.equal('cluster "north" is not a configured cluster (configured: east, west)');
    expect(east.pve.methods().length + west.pve.methods().length).to.equal(0);
  });
});

describe('health across clusters (SPEC 19, 32)', () => {
  it("every cluster's nodes, in the configured order, each naming its cluster", async () => {
    const { east, router } = two();
    const nodes = await router.health(east.ctx);
    expect(nodes.map((n) => [n.cluster, n.node, n.ok])).to.deep.equal([
      ['east', 'pv1-1', true],
      ['east', 'pv1-2', true],
      ['west', 'pv1-1', true],
      ['west', 'pv1-2', true],
    ]);
    expect(nodes.every((n) => typeof n.freeMemoryMiB === 'number')).to.equal(true);
  });

  it("a cluster whose check throws shows its configured nodes Unreachable, naming the error; the others' are as found", async () => {
    const { east, router } = two(() => Promise.reject(new Error('socket hang up')));
    const nodes = await router.health(east.ctx);
    expect(nodes.filter((n) => n.cluster === 'east').every((n) => n.ok)).to.equal(true);
    const west = nodes.filter((n) => n.cluster === 'west');
    expect(west.map((n) => n.node)).to.deep.equal(['pv1-1', 'pv1-2']);
    for (const node of west) {
      expect(node.ok).to.equal(false);
      expect(node.reasons).to.deep.equal([{ reason: 'Unreachable', detail: 'the health check of cluster west failed: socket hang up' }]);
      expect(node.images).to.deep.equal([{ image: 'default', ok: false, reasons: node.reasons }]);
    }
  });

  it('a cluster that cannot be reached reads Unreachable on each of its nodes from its own check', async () => {
    const { east, west, router } = two();
    west.pve.on('version', () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8006'), { code: 'ECONNREFUSED' });
    });
    const nodes = await router.health(east.ctx);
    expect(nodes.filter((n) => n.cluster === 'west').map((n) => n.reasons.map((r) => r.reason))).to.deep.equal([['Unreachable'], ['Unreachable']]);
  });

  it('a cancelled check is the cancellation, not an Unreachable cluster', async () => {
    const aborter = new AbortController();
    const { east, router } = two(() => {
      aborter.abort(new Error('worker shutting down'));
      return Promise.reject(new Error('aborted'));
    });
    const err = await rejection(router.health({ ...east.ctx, signal: aborter.signal }));
    expect(err.message).to.contain('worker shutting down');
  });
});
