// SPEC 32 (issue 34): the several-clusters form's marks and tags, and a
// provider that leaves another cluster's VMs alone: not listed, not
// matched by get, findByName or a create, not deleted. A VM of ours whose
// mark names no cluster (made in the one-cluster form) is the first
// cluster's. The one-cluster form writes no cluster line and no cluster tag.
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import { formatMark, parseMark } from '../../src/provider/mark.js';
import { clusterTag, taggedClusters } from '../../src/provider/tags.js';
import type { ClaimRequest, CreateSpec } from '../../src/provider/types.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { rejection } from '../support/rejection.js';
import { addOurVm, clusterView, harness, RANGE, TAG, type Harness } from './harness.js';

const CREATED = new Date('2026-11-30T09:00:00Z');
const EAST_TAG = `${TAG}-cluster-east`;
const WEST_TAG = `${TAG}-cluster-west`;

/** A provider of cluster `name` in a config of two clusters, east (the first) and west. */
function on(name: 'east' | 'west', pve = new FakeProxmox()): Harness {
  return harness({ pve, config: clusterView(name) });
}

function spec(name: string, uid: string): CreateSpec {
  return { name, uid, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true };
}

/** A VM of ours as a provider of `cluster` left it: the mark names the cluster, the tags carry its tag. */
function addClusterVm(pve: FakeProxmox, cluster: string, name: string, uid: string, vmid: number): void {
  addOurVm(pve, name, uid, { vmid, config: { description: formatMark(uid, CREATED, cluster), tags: `debian;${TAG};${TAG}-cluster-${cluster}` } });
}

describe('marks and tags name the cluster in the several-clusters form (SPEC 32)', () => {
  it('the mark gets a `cluster:` line only when a cluster is given, and reads back', () => {
    expect(formatMark('u1', CREATED)).to.equal(`managed-by: pve-provisioner\nuid: u1\nwritten-at-create: ${CREATED.toISOString()}`);
    expect(formatMark('u1', CREATED, 'east')).to.equal(`managed-by: pve-provisioner\nuid: u1\nwritten-at-create: ${CREATED.toISOString()}\ncluster: east`);
    expect(parseMark(formatMark('u1', CREATED, 'east'))).to.deep.equal({ uid: 'u1', writtenAtCreate: CREATED.toISOString(), cluster: 'east' });
    expect(parseMark(formatMark('u1', CREATED))).to.deep.equal({ uid: 'u1', writtenAtCreate: CREATED.toISOString() });
  });

  it('the cluster tag is `<tag>-cluster-<name>`, read back folded', () => {
    expect(clusterTag(TAG, 'east')).to.equal(EAST_TAG);
    expect(taggedClusters(`debian;${TAG};${TAG.toUpperCase()}-CLUSTER-West;${TAG}-pool`, TAG)).to.deep.equal(['west']);
  });

  it("a create writes the cluster into the clone's mark and the cluster's tag into the config write", async () => {
    const h = on('east');
    const uid = 'e0000000-0000-4000-8000-000000000001';
    const result = await h.provider.create(spec('app-1', uid), h.ctx);
    const clone = h.pve.callsTo('clone')[0]?.args[2] as { description: string };
    expect(parseMark(clone.description)?.cluster).to.equal('east');
    const put = h.pve.callsTo('putConfig')[0]?.args[2] as { tags: string };
    expect(put.tags.split(';')).to.include.members([TAG, EAST_TAG]);
    expect(parseMark(h.pve.vm(result.vmid)?.config.description)).to.include({ uid, cluster: 'east' });
  });

  it("a create naming another cluster than its provider's is refused Permanent before any call; its own cluster passes", async () => {
    const h = on('east');
    const err = await rejection(h.provider.create({ ...spec('app-1', 'e0000000-0000-4000-8000-000000000003'), cluster: 'west' }, h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.equal("create app-1: its cluster is west, but it reached cluster east's provider");
    expect(h.pve.methods()).to.deep.equal([]);
    const made = await h.provider.create({ ...spec('app-1', 'e0000000-0000-4000-8000-000000000003'), cluster: 'east' }, h.ctx);
    expect(parseMark(h.pve.vm(made.vmid)?.config.description)?.cluster).to.equal('east');
  });

  it('the one-cluster form writes no cluster line and no cluster tag', async () => {
    const h = harness();
    const result = await h.provider.create(spec('app-1', 'e0000000-0000-4000-8000-000000000002'), h.ctx);
    const config = h.pve.vm(result.vmid)?.config;
    expect(config?.description).not.to.contain('cluster');
    expect(config?.tags).not.to.contain('-cluster-');
  });

  it("a claim's rename writes the cluster into the claimer's mark and keeps the cluster's tag", async () => {
    const h = on('west');
    const memberUid = 'a0000000-0000-4000-8000-00000000000a';
    addOurVm(h.pve, 'pvep-pool-small-1', memberUid, {
      vmid: 123456,
      status: 'running',
      qmpstatus: 'running',
      config: { description: formatMark(memberUid, CREATED, 'west'), tags: `debian;${TAG};${TAG}-pool;${WEST_TAG}` },
    });
    const request: ClaimRequest = {
      spec: { ...spec('build-1', 'c0000000-0000-4000-8000-00000000000c'), sshKeys: [] },
      claim: { pool: 'small', member: 'pvep-pool-small-1', memberUid, vmid: 123456, node: 'pv1-1', address: '10.0.0.7', claimedAt: '2026-11-30T10:00:00.000Z' },
      user: 'debian',
    };
    await h.provider.claim(request, h.ctx);
    const config = h.pve.vm(123456)?.config;
    expect(config?.tags).to.equal(`debian;${TAG};${WEST_TAG}`);
    expect(parseMark(config?.description)).to.deep.equal({ uid: 'c0000000-0000-4000-8000-00000000000c', writtenAtCreate: CREATED.toISOString(), cluster: 'west' });
  });
});

describe("a cluster's provider leaves another cluster's VMs alone (SPEC 32)", () => {
  /** One Proxmox two cluster views share: the worst case, where only the marks and tags tell the clusters apart. */
  function shared(): FakeProxmox {
    const pve = new FakeProxmox();
    addClusterVm(pve, 'east', 'e-1', 'uid-e1', 100001);
    addClusterVm(pve, 'west', 'w-1', 'uid-w1', 100002);
    // West's mark, but no tag yet (a clone before its config write, SPEC 11).
    addOurVm(pve, 'w-2', 'uid-w2', { vmid: 100003, config: { description: formatMark('uid-w2', CREATED, 'west'), tags: 'debian' } });
    // Made in the one-cluster form: no cluster in mark or tags, so the first cluster's (east).
    addOurVm(pve, 'old-1', 'uid-o1', { vmid: 100004 });
    return pve;
  }

  it("listByTag lists its own and the first cluster's unmarked VMs, never another cluster's, whose tag costs no config read", async () => {
    const east = on('east', shared());
    expect((await east.provider.listByTag(east.ctx)).map((vm) => vm.name)).to.deep.equal(['e-1', 'old-1']);
    expect(east.pve.callsTo('getConfig').map((c) => c.args[1])).to.have.members([100001, 100004]);
    const west = on('west', shared());
    expect((await west.provider.listByTag(west.ctx)).map((vm) => vm.name)).to.deep.equal(['w-1']);
  });

  it('findByName(s) and the sweep listing match only this cluster\'s VMs: by tag, or by mark when untagged', async () => {
    const east = on('east', shared());
    expect(await east.provider.findByName('w-1', east.ctx)).to.deep.equal([]);
    expect(await east.provider.findByName('w-2', east.ctx)).to.deep.equal([]);
    expect((await east.provider.findByNames(['e-1', 'w-1', 'w-2', 'old-1'], east.ctx)).map((vm) => vm.name)).to.deep.equal(['e-1', 'old-1']);
    const west = on('west', shared());
    const listed = await west.provider.listTaggedOrNamed(['w-1', 'w-2', 'e-1', 'old-1'], west.ctx);
    expect(listed.map((vm) => [vm.name, vm.ours])).to.deep.equal([
      ['w-1', true],
      ['w-2', true],
    ]);
  });

  it("a known VM at another cluster's tag is not confirmed from the listing", async () => {
    const east = on('east', shared());
    const listed = await east.provider.listTaggedOrNamed(['w-1'], east.ctx, [{ name: 'w-1', uid: 'uid-w1', vmid: 100002, node: 'pv1-1' }]);
    expect(listed.map((vm) => vm.name)).to.deep.equal(['e-1', 'old-1']);
  });

  it("get answers NotFound for another cluster's VM, whose name and uid match", async () => {
    const pve = new FakeProxmox();
    const uid = 'b7e1c0de-0000-4000-8000-000000000001';
    addClusterVm(pve, 'west', 'app', uid, vmidForUid(uid, RANGE));
    const east = on('east', pve);
    expect(await east.provider.get({ name: 'app', uid }, east.ctx)).to.deep.equal({ state: 'NotFound' });
    const west = on('west', pve);
    expect((await west.provider.get({ name: 'app', uid }, west.ctx)).state).to.equal('Stopped');
  });

  it("a VM of ours marked with no cluster is the first cluster's: another cluster's get does not see it", async () => {
    const pve = new FakeProxmox();
    const uid = 'b7e1c0de-0000-4000-8000-000000000002';
    addOurVm(pve, 'legacy', uid);
    const east = on('east', pve);
    expect((await east.provider.get({ name: 'legacy', uid }, east.ctx)).state).to.equal('Stopped');
    const west = on('west', pve);
    expect(await west.provider.get({ name: 'legacy', uid }, west.ctx)).to.deep.equal({ state: 'NotFound' });
  });

  it("a delete leaves another cluster's VM of the name untouched", async () => {
    const pve = new FakeProxmox();
    const uid = 'b7e1c0de-0000-4000-8000-000000000003';
    const vmid = vmidForUid(uid, RANGE);
    addClusterVm(pve, 'west', 'app', uid, vmid);
    const east = on('east', pve);
    const result = await east.provider.delete({ name: 'app', uid }, east.ctx);
    expect(result.deleted).to.equal(false);
    expect(pve.vm(vmid)?.config.name).to.equal('app');
    expect(pve.count('destroy')).to.equal(0);
  });

  it("a create never adopts another cluster's VM of its name and uid: it clones its own past it", async () => {
    const pve = new FakeProxmox();
    const uid = 'b7e1c0de-0000-4000-8000-000000000004';
    const vmid = vmidForUid(uid, RANGE);
    addClusterVm(pve, 'west', 'app', uid, vmid);
    const east = on('east', pve);
    const result = await east.provider.create(spec('app', uid), east.ctx);
    expect(result.vmid).not.to.equal(vmid);
    expect(parseMark(pve.vm(result.vmid)?.config.description)?.cluster).to.equal('east');
    expect(parseMark(pve.vm(vmid)?.config.description)?.cluster).to.equal('west');
    expect(pve.vm(vmid)?.config.tags).not.to.contain(EAST_TAG);
  });

  it('the one-cluster form lists a VM whatever cluster its mark or tag names (nothing judged by cluster)', async () => {
    const h = harness({ pve: shared() });
    expect((await h.provider.listByTag(h.ctx)).map((vm) => vm.name)).to.deep.equal(['e-1', 'w-1', 'old-1']);
  });
});

describe('health in the several-clusters form (SPEC 19, 32)', () => {
  it("tags each node with its cluster and its free memory from the node's entry", async () => {
    const pve = new FakeProxmox({ nodes: [{ name: 'pv1-1', maxmem: 64 * 2 ** 30, mem: 24 * 2 ** 30 }] });
    const east = on('east', pve);
    const [node] = await east.provider.health(east.ctx);
    expect(node).to.include({ node: 'pv1-1', cluster: 'east', freeMemoryMiB: 40 * 1024, ok: true });
  });

  it('the one-cluster form adds neither', async () => {
    const h = harness();
    const [node] = await h.provider.health(h.ctx);
    expect(node).not.to.have.property('cluster');
    expect(node).not.to.have.property('freeMemoryMiB');
  });
});
