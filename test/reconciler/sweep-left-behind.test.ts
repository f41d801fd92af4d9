// SPEC 5 step 3 and SPEC 22 ("no seed lacks its VM"): a seed left on a node
// where its name's VM is not. A delete stopped between destroy and seed
// delete, superseded by a create placed on another node, leaves the old
// seed behind while the name has a VM: found by the long chaos run.
import { expect } from 'chai';
import { sweep } from '../../src/reconciler/sweep.js';
import { GRACE_SECONDS, NOW, OUR_TAG, ProviderDouble, makeWorld, mark } from './support.js';

const young = new Date(NOW.getTime() - (GRACE_SECONDS - 60) * 1000);

/** web's VM (uid-2) on pve2, its seed there, and the seed its first VM had on pve1. */
function leftBehind(shared: boolean | 'unsaid' = false, seedTime?: Date): ProviderDouble {
  return new ProviderDouble()
    .addVm({ vmid: 201, node: 'pve2', name: 'web', tags: [OUR_TAG], description: mark('uid-2') })
    .addSeed('web', 'pve2', undefined, shared)
    .addSeed('web', 'pve1', seedTime, shared);
}

describe('reconcile sweep: seeds left behind on another node (SPEC 5, SPEC 22)', () => {
  it('deletes the seed on a node without the VM, under the name lock, and keeps the one beside the VM', async () => {
    const provider = leftBehind();
    const world = makeWorld(provider);
    world.registry.present('web', 'uid-2', undefined, 3);

    const report = await sweep(world.deps, { dryRun: false });

    expect(provider.seeds.map((s) => s.node)).to.deep.equal(['pve2']);
    expect(world.locks.taken).to.deep.equal(['web']);
    expect(report.seeds.deleted).to.deep.equal([{ name: 'web', node: 'pve1', volid: 'seeds:iso/web-seed.iso', vmNode: 'pve2' }]);
    expect(world.findings).to.deep.equal(['orphan_seed']);
    expect(world.enqueuer.deletes).to.deep.equal([]);
  });

  it('keeps it when the storage is shared (one file under every node) or the listing did not say', async () => {
    for (const shared of [true, 'unsaid'] as const) {
      const provider = leftBehind(shared);
      const world = makeWorld(provider);
      world.registry.present('web', 'uid-2', undefined, 3);

      const report = await sweep(world.deps, { dryRun: false });

      expect(provider.deletedSeeds, `shared ${String(shared)}`).to.deep.equal([]);
      expect(report.seeds.deleted).to.deep.equal([]);
    }
  });

  it('keeps it while a VM of the name is on its node, or while the only VM elsewhere is not the present uid', async () => {
    const oldVmHere = leftBehind().addVm({ vmid: 101, node: 'pve1', name: 'web', tags: [OUR_TAG], description: mark('uid-1') });
    const worldA = makeWorld(oldVmHere);
    worldA.registry.present('web', 'uid-2', undefined, 3);
    const reportA = await sweep(worldA.deps, { dryRun: false });
    expect(oldVmHere.deletedSeeds).to.deep.equal([]);
    expect(reportA.seeds.skippedWanted).to.deep.equal([]);
    expect(worldA.enqueuer.deletes.map((d) => [d.name, d.uid])).to.deep.equal([['web', 'uid-1']]);

    const otherUid = leftBehind();
    const worldB = makeWorld(otherUid);
    worldB.registry.present('web', 'uid-3', undefined, 5);
    const reportB = await sweep(worldB.deps, { dryRun: false });
    expect(otherUid.deletedSeeds).to.deep.equal([]);
    expect(reportB.seeds.skippedWanted).to.deep.equal([]);
  });

  it('keeps it when the name moved on, or the VM moved to its node, before the lock was taken', async () => {
    const provider = leftBehind();
    const world = makeWorld(provider);
    world.registry.present('web', 'uid-2', undefined, 3);
    const listed = provider.listTaggedOrNamed.bind(provider);
    // The VM migrates to pve1 after the listing, before the seed's turn.
    provider.listTaggedOrNamed = async (names, ctx, known) => {
      const vms = await listed(names, ctx, known);
      provider.moveVm(201, 'pve1');
      return vms;
    };
    const moved = await sweep(world.deps, { dryRun: false });
    expect(provider.deletedSeeds).to.deep.equal([]);
    expect(moved.seeds.skippedWanted.map((s) => s.node)).to.deep.equal(['pve1']);

    const renewed = leftBehind();
    const world2 = makeWorld(renewed);
    world2.registry.present('web', 'uid-2', undefined, 3);
    const seen = await world2.registry.listAll();
    // A delete and a create for uid-4 were accepted after the sweep read the registry.
    world2.registry.listAll = () => Promise.resolve(seen);
    world2.registry.present('web', 'uid-4', undefined, 5);
    const report = await sweep(world2.deps, { dryRun: false });
    expect(renewed.deletedSeeds).to.deep.equal([]);
    expect(report.seeds.skippedWanted.map((s) => s.node)).to.deep.equal(['pve1']);
  });

  it('leaves a young one alone, and with dryRun only reports it', async () => {
    const fresh = leftBehind(false, young);
    const world = makeWorld(fresh);
    world.registry.present('web', 'uid-2', undefined, 3);
    const report = await sweep(world.deps, { dryRun: false });
    expect(fresh.deletedSeeds).to.deep.equal([]);
    expect(report.seeds.skippedYoung.map((s) => s.node)).to.deep.equal(['pve1']);

    const old = leftBehind();
    const dry = makeWorld(old);
    dry.registry.present('web', 'uid-2', undefined, 3);
    const dryReport = await sweep(dry.deps, { dryRun: true });
    expect(old.deletedSeeds).to.deep.equal([]);
    expect(dryReport.seeds.deleted.map((s) => s.node)).to.deep.equal(['pve1']);
  });
});
