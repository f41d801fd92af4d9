// SPEC 14 (ListByTag), SPEC 5 (findByName, findByNames), seeds (SPEC 11, F13).
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { LIST_CONCURRENCY } from '../../src/provider/list.js';
import { seedVolid } from '../../src/provider/seeds.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, testConfig, TAG } from './harness.js';
import { rejection } from '../support/rejection.js';

describe('ListByTag (SPEC 14)', () => {
  it('one resources call, then one config read per tagged qemu VM that is not a template', async () => {
    const h = harness();
    addOurVm(h.pve, 'a', 'uid-a', { vmid: 100001 });
    addOurVm(h.pve, 'b', 'uid-b', { vmid: 100002, config: { tags: `DEBIAN;${TAG.toUpperCase()}` } });
    addOurVm(h.pve, 'untagged', 'uid-c', { vmid: 100003, config: { tags: 'debian' } });
    addOurVm(h.pve, 'tmpl', 'uid-d', { vmid: 100004, config: { template: 1 } });
    addOurVm(h.pve, 'ct', 'uid-e', { vmid: 100005, kind: 'lxc' });
    h.pve.addVm({ vmid: 100006, config: { name: 'hand-tagged', tags: TAG } });
    const list = await h.provider.listByTag(h.ctx);
    expect(h.pve.count('clusterResources')).to.equal(1);
    expect(h.pve.callsTo('getConfig').map((c) => c.args[1])).to.have.members([100001, 100002, 100006]);
    expect(list.map((v) => [v.vmid, v.name, v.uid, v.ours])).to.deep.equal([
      [100001, 'a', 'uid-a', true],
      [100002, 'b', 'uid-b', true],
      [100006, 'hand-tagged', undefined, false],
    ]);
    expect(list[0]).to.include({ node: 'pv1-1', tagged: true, createdAt: '2026-11-30T09:00:00.000Z' });
  });

  it('reads configs with bounded concurrency', async () => {
    const h = harness();
    for (let i = 0; i < 30; i++) addOurVm(h.pve, `vm-${i}`, `uid-${i}`, { vmid: 100000 + i });
    let inFlight = 0;
    let most = 0;
    h.pve.on('getConfig', async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight -= 1;
    });
    const list = await h.provider.listByTag(h.ctx);
    expect(list).to.have.length(30);
    expect(most).to.equal(LIST_CONCURRENCY);
  });

  it('a failing config read reports that candidate as unknown and the list still returns', async () => {
    const h = harness();
    addOurVm(h.pve, 'a', 'uid-a', { vmid: 100001 });
    addOurVm(h.pve, 'b', 'uid-b', { vmid: 100002 });
    h.pve.on('getConfig', (args) => {
      if (args[1] === 100001) throw fakeErrors.noRouteToHost();
    });
    const list = await h.provider.listByTag(h.ctx);
    expect(list.map((v) => [v.vmid, v.name, v.ours])).to.deep.equal([
      [100001, 'a', 'unknown'],
      [100002, 'b', true],
    ]);
  });

  it('fails whole when the resources call fails, with its class', async () => {
    const h = harness();
    h.pve.failNext('clusterResources', fakeErrors.authFailed());
    expect(await rejection(h.provider.listByTag(h.ctx))).to.be.instanceOf(PermanentError);
  });

  it('an aborted signal ends it', async () => {
    const h = harness();
    for (let i = 0; i < 30; i++) addOurVm(h.pve, `vm-${i}`, `uid-${i}`, { vmid: 100000 + i });
    const ac = new AbortController();
    h.pve.on('getConfig', () => {
      if (h.pve.count('getConfig') === 3) ac.abort(new Error('job cancelled'));
    });
    const err = await rejection(h.provider.listByTag({ signal: ac.signal }));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.contain('job cancelled');
    expect(h.pve.count('getConfig')).to.be.at.most(LIST_CONCURRENCY + 2);
  });
});

describe('findByName (SPEC 5)', () => {
  it('finds every VM with the name, tagged or not, with its mark', async () => {
    const h = harness();
    addOurVm(h.pve, 'a', 'uid-a', { vmid: 100001, config: { tags: 'debian' } });
    h.pve.addVm({ vmid: 100002, config: { name: 'a' } });
    addOurVm(h.pve, 'b', 'uid-b', { vmid: 100003 });
    const found = await h.provider.findByName('a', h.ctx);
    expect(found.map((v) => [v.vmid, v.uid, v.ours, v.tagged])).to.deep.equal([
      [100001, 'uid-a', true, false],
      [100002, undefined, false, false],
    ]);
  });
});

describe('findByNames (SPEC 5, SPEC 21 sweep)', () => {
  /** 1,000 foreign VMs and 10 of ours; ours-7 was cloned just before a crash: our name and mark, no tag yet (SPEC 11). */
  function crowdedCluster(): ReturnType<typeof harness> {
    const h = harness();
    for (let i = 0; i < 1000; i++) h.pve.addVm({ vmid: 200000 + i, config: { name: `foreign-${i}`, tags: 'debian' } });
    for (let i = 0; i < 10; i++) addOurVm(h.pve, `ours-${i}`, `uid-${i}`, { vmid: 100000 + i, config: i === 7 ? { tags: 'debian' } : {} });
    return h;
  }

  it('one resources call for all names, config reads only for the VMs carrying them', async () => {
    const h = crowdedCluster();
    const found = await h.provider.findByNames(['ours-2', 'ours-7', 'foreign-500'], h.ctx);
    expect(h.pve.count('clusterResources')).to.equal(1);
    expect(h.pve.callsTo('getConfig').map((c) => c.args[1])).to.have.members([100002, 100007, 200500]);
    expect(found.map((v) => [v.vmid, v.name, v.uid, v.ours, v.tagged])).to.have.deep.members([
      [100002, 'ours-2', 'uid-2', true, true],
      [100007, 'ours-7', 'uid-7', true, false],
      [200500, 'foreign-500', undefined, false, false],
    ]);
  });

  it('listTaggedOrNamed: our tagged VMs and the named ones from one resources call, each config read once (SPEC 5, 14, 21)', async () => {
    const h = crowdedCluster();
    const found = await h.provider.listTaggedOrNamed(['ours-2', 'ours-7', 'foreign-500'], h.ctx);
    expect(h.pve.count('clusterResources')).to.equal(1);
    const ours = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => 100000 + i);
    expect(h.pve.callsTo('getConfig').map((c) => c.args[1])).to.have.members([...ours, 200500]);
    expect(found.map((v) => v.vmid)).to.have.members([...ours, 200500]);
    expect(found.find((v) => v.vmid === 100007)).to.include({ name: 'ours-7', uid: 'uid-7', ours: true, tagged: false });
  });

  it('leaves out templates and containers carrying a name', async () => {
    const h = harness();
    addOurVm(h.pve, 'tmpl', 'uid-t', { vmid: 100001, config: { template: 1 } });
    addOurVm(h.pve, 'ct', 'uid-c', { vmid: 100002, kind: 'lxc' });
    addOurVm(h.pve, 'vm', 'uid-v', { vmid: 100003 });
    const found = await h.provider.findByNames(['tmpl', 'ct', 'vm'], h.ctx);
    expect(found.map((v) => v.vmid)).to.deep.equal([100003]);
  });

  it('a failing config read reports that candidate as unknown, never drops it', async () => {
    const h = harness();
    addOurVm(h.pve, 'a', 'uid-a', { vmid: 100001 });
    addOurVm(h.pve, 'b', 'uid-b', { vmid: 100002 });
    h.pve.on('getConfig', (args) => {
      if (args[1] === 100001) throw fakeErrors.noRouteToHost();
    });
    const found = await h.provider.findByNames(['a', 'b'], h.ctx);
    expect(found.map((v) => [v.vmid, v.name, v.ours])).to.deep.equal([
      [100001, 'a', 'unknown'],
      [100002, 'b', true],
    ]);
  });

  it('reads configs with bounded concurrency, and an aborted signal ends it', async () => {
    const h = harness();
    const names: string[] = [];
    for (let i = 0; i < 30; i++) {
      addOurVm(h.pve, `vm-${i}`, `uid-${i}`, { vmid: 100000 + i });
      names.push(`vm-${i}`);
    }
    let inFlight = 0;
    let most = 0;
    const ac = new AbortController();
    h.pve.on('getConfig', async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight -= 1;
      if (h.pve.count('getConfig') === 12) ac.abort(new Error('job cancelled'));
    });
    const err = await rejection(h.provider.findByNames(names, { signal: ac.signal }));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.contain('job cancelled');
    expect(most).to.equal(LIST_CONCURRENCY);
    expect(h.pve.count('getConfig')).to.be.below(30);
  });

  it('fails whole when the resources call fails, with its class', async () => {
    const h = harness();
    h.pve.failNext('clusterResources', fakeErrors.authFailed());
    expect(await rejection(h.provider.findByNames(['a'], h.ctx))).to.be.instanceOf(PermanentError);
  });
});

describe('listTaggedOrNamed, the sweep\'s one listing (SPEC 5, 14)', () => {
  it('a failing config read (a 500, no route to host) reports the candidate as unknown, never drops it, tagged or found by its name', async () => {
    const h = harness();
    addOurVm(h.pve, 'stray', 'uid-s', { vmid: 100001 }); // tagged, a name the sweep did not ask for
    addOurVm(h.pve, 'crashed', 'uid-c', { vmid: 100002, config: { tags: 'debian' } }); // untagged (a clone before its tag, SPEC 11), a name asked for
    addOurVm(h.pve, 'fine', 'uid-f', { vmid: 100003 });
    h.pve.on('getConfig', (args) => {
      if (args[1] === 100001) throw fakeErrors.injected('internal error');
      if (args[1] === 100002) throw fakeErrors.noRouteToHost();
    });
    const found = await h.provider.listTaggedOrNamed(['crashed'], h.ctx);
    expect(found.map((v) => [v.vmid, v.name, v.ours])).to.have.deep.members([
      [100001, 'stray', 'unknown'],
      [100002, 'crashed', 'unknown'],
      [100003, 'fine', true],
    ]);
  });

  it('fails whole when the resources call fails, with its class: never an empty answer', async () => {
    const h = harness();
    addOurVm(h.pve, 'a', 'uid-a', { vmid: 100001 });
    h.pve.failNext('clusterResources', fakeErrors.noRouteToHost());
    expect(await rejection(h.provider.listTaggedOrNamed(['a'], h.ctx))).to.be.instanceOf(TransientError);
  });
});

describe('seeds (SPEC 11, F13)', () => {
  it('lists <name>-seed.iso files on every configured node and deletes one with a task', async () => {
    const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }] });
    pve.addVolume('a', 'proxy-seeds', 'proxy-seeds:iso/web-1-seed.iso');
    pve.addVolume('b', 'proxy-seeds', 'proxy-seeds:iso/web-2-seed.iso');
    pve.addVolume('b', 'proxy-seeds', 'proxy-seeds:iso/debian-13.iso');
    const h = harness({
      pve,
      config: testConfig([
        { name: 'a', template: 9001, isoStorage: 'proxy-seeds' },
        { name: 'b', template: 9002, isoStorage: 'proxy-seeds' },
      ]),
    });
    const seeds = await h.provider.listSeeds(h.ctx);
    expect(seeds.map((s) => [s.node, s.name, s.volid])).to.deep.equal([
      ['a', 'web-1', 'proxy-seeds:iso/web-1-seed.iso'],
      ['b', 'web-2', 'proxy-seeds:iso/web-2-seed.iso'],
    ]);
    await h.provider.deleteSeed(seeds[1]!, h.ctx);
    expect(pve.volumes('b', 'proxy-seeds').map((v) => v.volid)).to.deep.equal(['proxy-seeds:iso/debian-13.iso']);
    await h.provider.deleteSeed(seeds[1]!, h.ctx);
  });

  it("says whether each seed's storage is shared, from one storage listing per node, and leaves it unsaid when that listing fails (SPEC 5)", async () => {
    const pve = new FakeProxmox({
      nodes: [
        { name: 'a' },
        { name: 'b', storages: [{ storage: 'proxy-seeds', content: 'iso', type: 'nfs', shared: true }] },
        { name: 'c' },
      ],
    });
    pve.addVolume('a', 'proxy-seeds', 'proxy-seeds:iso/web-1-seed.iso');
    pve.addVolume('b', 'proxy-seeds', 'proxy-seeds:iso/web-2-seed.iso');
    pve.addVolume('c', 'proxy-seeds', 'proxy-seeds:iso/web-3-seed.iso');
    pve.on('storages', (args) => {
      if (args[0] === 'c') throw fakeErrors.noRouteToHost();
    });
    const h = harness({
      pve,
      config: testConfig(['a', 'b', 'c'].map((name, i) => ({ name, template: 9001 + i, isoStorage: 'proxy-seeds' }))),
    });
    const seeds = await h.provider.listSeeds(h.ctx);
    expect(seeds.map((s) => [s.node, s.name, s.shared])).to.deep.equal([
      ['a', 'web-1', false],
      ['b', 'web-2', true],
      ['c', 'web-3', undefined],
    ]);
    expect(pve.callsTo('storages').map((c) => c.args[0])).to.deep.equal(['a', 'b', 'c']);
  });

  it('names a seed as the seed builder does, and refuses an empty name rather than target -seed.iso', () => {
    expect(seedVolid('proxy-seeds', 'web-1')).to.equal('proxy-seeds:iso/web-1-seed.iso');
    expect(() => seedVolid('proxy-seeds', '')).to.throw(PermanentError, 'empty VM name');
  });

  it('a delete without Datastore.Allocate is Permanent and names the privilege (F13, F17)', async () => {
    const h = harness();
    h.pve.deleteForbidden.add('proxy-seeds');
    const err = await rejection(h.provider.deleteSeed({ node: 'pv1-1', storage: 'proxy-seeds', volid: 'proxy-seeds:iso/x-seed.iso', name: 'x' }, h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect((err as PermanentError).reason).to.contain('Datastore.Allocate');
  });
});
