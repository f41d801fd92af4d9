// SPEC 5: the reconcile sweep, over the provider double of support.ts.
// What a crash, a hand-made change or a lost request leaves behind is found
// and handled; nothing wanted and nothing foreign is touched.
import { expect } from 'chai';
import { sweep } from '../../src/reconciler/sweep.js';
import { GRACE_SECONDS, NOW, OUR_TAG, ProviderDouble, makeWorld, mark } from './support.js';

const young = new Date(NOW.getTime() - (GRACE_SECONDS - 60) * 1000);

describe('reconcile sweep (SPEC 5)', () => {
  it('handles an orphan, an old uid under a re-created name, a seed with no VM and a VM deleted by hand in one sweep', async () => {
    const provider = new ProviderDouble()
      .addVm({ vmid: 101, node: 'pve1', name: 'orphan-a', tags: [OUR_TAG], description: mark('uid-a') })
      .addVm({ vmid: 102, node: 'pve1', name: 'web', tags: [OUR_TAG], description: mark('uid-old') })
      .addVm({ vmid: 103, node: 'pve2', name: 'web', tags: [OUR_TAG], description: mark('uid-new') })
      .addSeed('orphan-a', 'pve1')
      .addSeed('web', 'pve2')
      .addSeed('gone', 'pve1')
      .addSeed('db', 'pve2');
    const world = makeWorld(provider);
    // orphan-a was deleted long ago: its tombstone expired, its generation remains.
    world.registry.present('web', 'uid-new', undefined, 3).present('db', 'uid-db', undefined, 5).tombstone('gone').expired('orphan-a', 2);

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.deletes.map((d) => [d.name, d.uid])).to.deep.equal([
      ['orphan-a', 'uid-a'],
      ['web', 'uid-old'],
    ]);
    expect(world.enqueuer.deletes.map((d) => d.seenGeneration)).to.deep.equal([2, 3]);
    expect(world.enqueuer.creates).to.deep.equal([{ name: 'db', generation: 5 }]);
    expect(provider.deletedSeeds).to.deep.equal(['seeds:iso/gone-seed.iso']);
    expect(world.locks.taken).to.deep.equal(['gone']);
    expect(report.orphans.deleted.map((o) => [o.vmid, o.reason, o.jobId])).to.deep.equal([
      [101, 'unknown name', 'delete-1'],
      [102, 'present with another uid', 'delete-2'],
    ]);
    expect(report.missing.reenqueued).to.deep.equal([{ name: 'db', uid: 'uid-db', generation: 5, jobId: 'create-1' }]);
    expect(report.seeds.deleted.map((s) => s.name)).to.deep.equal(['gone']);
    expect(report).to.include({ listed: 3, ours: 3, dryRun: false });
    expect(world.findings.sort()).to.deep.equal(['missing_vm', 'orphan_seed', 'orphan_vm', 'orphan_vm']);
  });

  it('leaves a VM younger than the grace period and a name whose lock is held alone', async () => {
    const provider = new ProviderDouble()
      .addVm({ vmid: 201, node: 'pve1', name: 'fresh', tags: [OUR_TAG], description: mark('uid-f', young) })
      .addVm({ vmid: 202, node: 'pve1', name: 'busy', tags: [OUR_TAG], description: mark('uid-b') })
      .addSeed('fresh-seedless', 'pve1', young)
      .addSeed('busy-seedless', 'pve1');
    const world = makeWorld(provider);
    world.registry.present('busy-missing', 'uid-m').expired('fresh').expired('busy').expired('fresh-seedless').expired('busy-seedless');
    world.locks.held.add('busy').add('busy-seedless').add('busy-missing');

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.deletes).to.deep.equal([]);
    expect(world.enqueuer.creates).to.deep.equal([]);
    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(report.orphans.skippedYoung.map((o) => o.name)).to.deep.equal(['fresh']);
    expect(report.orphans.skippedLocked.map((o) => o.name)).to.deep.equal(['busy']);
    expect(report.seeds.skippedYoung.map((s) => s.name)).to.deep.equal(['fresh-seedless']);
    expect(report.seeds.skippedLocked.map((s) => s.name)).to.deep.equal(['busy-seedless']);
    expect(report.missing.skippedLocked.map((m) => m.name)).to.deep.equal(['busy-missing']);
  });

  it('finds and deletes a VM cloned but not yet tagged under a tombstoned name (SPEC 11)', async () => {
    const provider = new ProviderDouble().addVm({ vmid: 301, node: 'pve2', name: 'crashed', tags: ['template-tag'], description: mark('uid-c') });
    const world = makeWorld(provider);
    world.registry.tombstone('crashed', 4);

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.deletes).to.deep.equal([
      { name: 'crashed', uid: 'uid-c', reason: 'reconciler: orphan (tombstoned name)', seenGeneration: 4 },
    ]);
    expect(report.orphans.deleted.map((o) => o.vmid)).to.deep.equal([301]);
  });

  it('looks every name up in the one listing, and still finds the untagged clone', async () => {
    const provider = new ProviderDouble()
      .addVm({ vmid: 311, node: 'pve2', name: 'crashed', tags: ['template-tag'], description: mark('uid-c') })
      .addSeed('gone', 'pve1');
    const world = makeWorld(provider);
    world.registry.tombstone('crashed', 4).present('a', 'uid-a').present('b', 'uid-b').tombstone('gone');

    await sweep(world.deps, { dryRun: false });

    expect(provider.calls).to.include({ listTaggedOrNamed: 1, findByName: 0 });
    expect(world.enqueuer.deletes.map((d) => [d.name, d.uid])).to.deep.equal([['crashed', 'uid-c']]);
    expect(world.enqueuer.creates.map((c) => c.name)).to.deep.equal(['a', 'b']);
    expect(provider.deletedSeeds).to.deep.equal(['seeds:iso/gone-seed.iso']);
  });

  it('lists tagged VMs and every known or seed name in one call, and still finds the untagged clone', async () => {
    const provider = new ProviderDouble()
      .addVm({ vmid: 311, node: 'pve2', name: 'crashed', tags: ['template-tag'], description: mark('uid-c') })
      .addVm({ vmid: 312, node: 'pve1', name: 'orphan-t', tags: [OUR_TAG], description: mark('uid-t') })
      // Known only by its seed: its tombstone expired, its clone never got the tag.
      .addVm({ vmid: 313, node: 'pve2', name: 'half', tags: [], description: mark('uid-h') })
      .addSeed('half', 'pve2')
      .addSeed('gone', 'pve1');
    const world = makeWorld(provider);
    world.registry.tombstone('crashed', 4).tombstone('orphan-t', 6).present('a', 'uid-a').tombstone('gone').expired('half', 3);

    await sweep(world.deps, { dryRun: false });

    expect(provider.calls).to.include({ listTaggedOrNamed: 1, findByName: 0 });
    expect(world.enqueuer.deletes.map((d) => [d.name, d.uid])).to.have.deep.members([['crashed', 'uid-c'], ['orphan-t', 'uid-t'], ['half', 'uid-h']]);
    expect(world.enqueuer.creates.map((c) => c.name)).to.deep.equal(['a']);
    expect(provider.deletedSeeds).to.deep.equal(['seeds:iso/gone-seed.iso']);
  });

  it('never touches a VM that is not ours', async () => {
    const provider = new ProviderDouble()
      // our tag, no mark
      .addVm({ vmid: 401, node: 'pve1', name: 'hand-made', tags: [OUR_TAG], description: 'my own VM' })
      // another tag, with a mark of a uid we never issued, under a name we do not know
      .addVm({ vmid: 402, node: 'pve1', name: 'stranger', tags: ['other_tool'], description: mark('uid-x') })
      // a name we know, no mark
      .addVm({ vmid: 403, node: 'pve1', name: 'web', tags: [], description: 'someone else named it web' })
      // a name we know, another tag and no mark
      .addVm({ vmid: 404, node: 'pve2', name: 'gone', tags: ['other_tool'] })
      // our tag, its config unreadable: maybe ours, maybe not
      .addVm({ vmid: 405, node: 'pve2', name: 'murky', tags: [OUR_TAG], configUnreadable: true })
      .addSeed('web', 'pve1')
      .addSeed('gone', 'pve1')
      .addSeed('murky', 'pve1');
    const world = makeWorld(provider);
    world.registry.present('web', 'uid-web').tombstone('gone').present('murky', 'uid-murky');

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.deletes).to.deep.equal([]);
    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(report.orphans.unknown.map((u) => u.vmid)).to.deep.equal([405]);
    expect(report.ours).to.equal(0);
    // web is present and its VM is gone (403 is not it): its create is re-enqueued;
    // murky may still have its VM, so nothing is re-created for it.
    expect(world.enqueuer.creates.map((c) => c.name)).to.deep.equal(['web']);
  });

  it('with dryRun reports what it would do and changes nothing', async () => {
    const provider = new ProviderDouble()
      .addVm({ vmid: 501, node: 'pve1', name: 'orphan-a', tags: [OUR_TAG], description: mark('uid-a') })
      .addSeed('gone', 'pve1')
      .addSeed('busy', 'pve1');
    const world = makeWorld(provider);
    world.registry.present('db', 'uid-db').expired('orphan-a').tombstone('gone').expired('busy');
    world.locks.held.add('busy');

    const report = await sweep(world.deps, { dryRun: true });

    expect(world.enqueuer.deletes).to.deep.equal([]);
    expect(world.enqueuer.creates).to.deep.equal([]);
    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(provider.calls.deleteSeed).to.equal(0);
    expect(world.locks.taken).to.deep.equal([]);
    expect(report.dryRun).to.equal(true);
    expect(report.orphans.deleted.map((o) => [o.name, o.jobId])).to.deep.equal([['orphan-a', undefined]]);
    expect(report.seeds.deleted.map((s) => s.name)).to.deep.equal(['gone']);
    expect(report.seeds.skippedLocked.map((s) => s.name)).to.deep.equal(['busy']);
    expect(report.missing.reenqueued.map((m) => m.name)).to.deep.equal(['db']);
  });

  it('re-enqueues no create and deletes no seed for a name whose job is pending (it is being made)', async () => {
    const provider = new ProviderDouble().addSeed('coming', 'pve1').addSeed('leaving', 'pve1');
    const world = makeWorld(provider);
    world.registry.present('coming', 'uid-c').tombstone('leaving');
    world.jobs.pending.add('coming').add('leaving');

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.creates).to.deep.equal([]);
    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(report.seeds.skippedWanted.map((s) => s.name)).to.deep.equal(['leaving']);
  });

  it('keeps a seed whose name became present while the sweep ran (read again under the lock)', async () => {
    const provider = new ProviderDouble().addSeed('late', 'pve1');
    const world = makeWorld(provider);
    // listAll saw no "late" (its tombstone expired); a create is accepted before the seed's turn.
    world.deps.registry = {
      listAll: () => Promise.resolve([]),
      knownGenerations: () => Promise.resolve(new Map([['late', 1]])),
      get: (name) => Promise.resolve({ name, state: 'present', uid: 'uid-l', generation: 1, updatedAt: NOW.toISOString() }),
    };

    const report = await sweep(world.deps, { dryRun: false });

    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(report.seeds.skippedWanted.map((s) => s.name)).to.deep.equal(['late']);
  });

  it('decides nothing about a name whose VM could not be read (its config read failed)', async () => {
    // The listing reads each candidate's config; a read that fails makes the VM unknown, never absent (SPEC 14).
    const provider = new ProviderDouble()
      .addVm({ vmid: 801, node: 'pve1', name: 'blind', tags: [], configUnreadable: true })
      .addVm({ vmid: 802, node: 'pve1', name: 'blind2', tags: [], configUnreadable: true })
      .addSeed('blind', 'pve1')
      .addSeed('blind2', 'pve1');
    const world = makeWorld(provider);
    world.registry.present('blind', 'uid-b').expired('blind2');

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.creates).to.deep.equal([]);
    expect(world.enqueuer.deletes).to.deep.equal([]);
    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(report.orphans.unknown.map((u) => [u.vmid, u.name])).to.deep.equal([
      [801, 'blind'],
      [802, 'blind2'],
    ]);
  });

  it('skips a present entry recorded within the grace period, and re-creates nothing when recreateMissing is off', async () => {
    const world = makeWorld(new ProviderDouble(), { recreateMissing: false });
    world.registry.present('new', 'uid-n', young).present('old', 'uid-o');

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.creates).to.deep.equal([]);
    expect(report.missing.skippedYoung.map((m) => m.name)).to.deep.equal(['new']);
    expect(report.missing.notRecreated.map((m) => m.name)).to.deep.equal(['old']);
  });

  it('leaves a VM of ours whose mark has no creation time alone (its age is unknown)', async () => {
    const provider = new ProviderDouble().addVm({
      vmid: 601,
      node: 'pve1',
      name: 'ageless',
      tags: [OUR_TAG],
      description: 'managed-by: pve-provisioner\nuid: uid-z',
    });
    const world = makeWorld(provider);
    world.registry.expired('ageless');

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.deletes).to.deep.equal([]);
    expect(report.orphans.unknown.map((u) => u.vmid)).to.deep.equal([601]);
  });

  it('leaves a VM of ours under a name this registry never recorded alone (lost registry data, or another installation)', async () => {
    const provider = new ProviderDouble()
      .addVm({ vmid: 701, node: 'pve1', name: 'elsewhere', tags: [OUR_TAG], description: mark('uid-e') })
      .addVm({ vmid: 702, node: 'pve1', name: 'forgotten', tags: [OUR_TAG], description: mark('uid-f') })
      .addSeed('elsewhere-seedless', 'pve1');
    const world = makeWorld(provider);
    world.registry.expired('forgotten');

    const report = await sweep(world.deps, { dryRun: false });

    expect(world.enqueuer.deletes.map((d) => d.name)).to.deep.equal(['forgotten']);
    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(report.seeds.neverRecorded.map((s) => s.name)).to.deep.equal(['elsewhere-seedless']);
    expect(report.orphans.unknown.map((u) => [u.vmid, u.why])).to.deep.equal([
      [701, 'its name was never recorded by this registry (another installation, or lost registry data)'],
    ]);
  });

  it('fails as a whole, acting on nothing, when the tag listing fails', async () => {
    const provider = new ProviderDouble().addSeed('gone', 'pve1');
    provider.listTaggedOrNamed = () => Promise.reject(new Error('cluster/resources: 596'));
    const world = makeWorld(provider);
    world.registry.present('db', 'uid-db');

    let failure: unknown;
    await sweep(world.deps, { dryRun: false }).catch((err: unknown) => (failure = err));

    expect(failure).to.be.instanceOf(Error);
    expect(world.enqueuer.creates).to.deep.equal([]);
    expect(provider.deletedSeeds).to.deep.equal([]);
  });

  it('fails as a whole, acting on nothing, when the seed listing fails (its names are part of the VM listing)', async () => {
    const provider = new ProviderDouble().addVm({ vmid: 901, node: 'pve1', name: 'orphan', tags: [OUR_TAG], description: mark('uid-o') });
    provider.listSeeds = () => Promise.reject(new Error('storage content: 596'));
    const world = makeWorld(provider);
    world.registry.present('db', 'uid-db').tombstone('orphan');

    let failure: unknown;
    await sweep(world.deps, { dryRun: false }).catch((err: unknown) => (failure = err));

    expect(failure).to.be.instanceOf(Error);
    expect(world.enqueuer.creates).to.deep.equal([]);
    expect(world.enqueuer.deletes).to.deep.equal([]);
  });
});
