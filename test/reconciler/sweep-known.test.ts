// SPEC 26, SPEC 5: a steady sweep confirms from the listing the VMs the
// registry knows (a present name's uid at the VMID and node its last job
// saw) and reads the config of every other candidate, over the provider
// double of support.ts, which applies the provider's own matching rule.
import { expect } from 'chai';
import { sweep } from '../../src/reconciler/sweep.js';
import { ProviderDouble, OLD, OUR_TAG, makeWorld, mark } from './support.js';

/** N VMs of ours, each where the registry last saw it. */
function steadyWorld(count: number): { provider: ProviderDouble; world: ReturnType<typeof makeWorld> } {
  const provider = new ProviderDouble();
  const world = makeWorld(provider);
  for (let i = 0; i < count; i += 1) {
    const name = `vm-${i}`;
    const node = i % 2 === 0 ? 'pve1' : 'pve2';
    provider.addVm({ vmid: 1000 + i, node, name, tags: [OUR_TAG], description: mark(`uid-${i}`) }).addSeed(name, node);
    world.registry.present(name, `uid-${i}`).seen(name, 1000 + i, node);
  }
  return { provider, world };
}

describe('reconcile sweep: ownership from the listing (SPEC 26)', () => {
  it('makes one listing and reads no config when every VM of ours is where the registry saw it', async () => {
    const { provider, world } = steadyWorld(50);

    const report = await sweep(world.deps, { dryRun: false });

    expect(provider.calls).to.include({ listTaggedOrNamed: 1, listSeeds: 1, findByName: 0, deleteSeed: 0 });
    expect(provider.configReads).to.deep.equal([]);
    expect(report.counts).to.include({ listed: 50, ours: 50, orphansDeleted: 0, unknown: 0, seedsDeleted: 0, missingReenqueued: 0, errors: 0 });
    expect(world.enqueuer.deletes).to.deep.equal([]);
    expect(world.enqueuer.creates).to.deep.equal([]);
  });

  it('reads the config of a VM at another VMID than its name last had, and deletes it when it carries an old uid', async () => {
    const { provider, world } = steadyWorld(3);
    // vm-1's VM at 1001 was destroyed by hand; 1500 holds the name with a uid it had before.
    provider.vms.delete(1001);
    provider.addVm({ vmid: 1500, node: 'pve2', name: 'vm-1', tags: [OUR_TAG], description: mark('uid-old') });

    await sweep(world.deps, { dryRun: false });

    expect(provider.configReads).to.deep.equal([1500]);
    expect(world.enqueuer.deletes.map((d) => [d.name, d.uid])).to.deep.equal([['vm-1', 'uid-old']]);
    expect(world.enqueuer.creates.map((c) => c.name)).to.deep.equal(['vm-1']);
  });

  it('reads the config of a VM with its name but no tag (a clone made just before a crash, SPEC 5, 11)', async () => {
    const { provider, world } = steadyWorld(3);
    provider.addVm({ vmid: 1600, node: 'pve1', name: 'vm-2', tags: [], description: mark('uid-crashed') });
    // Even at the very VMID and node the registry last saw: without our tag it is not taken on trust.
    const untagged = provider.vms.get(1000);
    if (untagged) untagged.tags = [];

    await sweep(world.deps, { dryRun: false });

    expect(provider.configReads.sort()).to.deep.equal([1000, 1600]);
    expect(world.enqueuer.deletes.map((d) => [d.name, d.uid])).to.deep.equal([['vm-2', 'uid-crashed']]);
  });

  it('reads the config of a tagged VM under a name the registry does not hold as present', async () => {
    const { provider, world } = steadyWorld(3);
    provider.addVm({ vmid: 1700, node: 'pve1', name: 'stray', tags: [OUR_TAG], description: mark('uid-s') });
    provider.addVm({ vmid: 1701, node: 'pve1', name: 'dropped', tags: [OUR_TAG], description: mark('uid-d') });
    world.registry.expired('stray', 2).tombstone('dropped', 4);

    await sweep(world.deps, { dryRun: false });

    expect(provider.configReads.sort()).to.deep.equal([1700, 1701]);
    expect(world.enqueuer.deletes.map((d) => [d.name, d.uid]).sort()).to.deep.equal([
      ['dropped', 'uid-d'],
      ['stray', 'uid-s'],
    ]);
  });

  it('reads the config of a VM now on another node than its last job saw', async () => {
    const { provider, world } = steadyWorld(3);
    provider.moveVm(1000, 'pve2');

    await sweep(world.deps, { dryRun: false });

    expect(provider.configReads).to.deep.equal([1000]);
    expect(world.enqueuer.deletes).to.deep.equal([]);
  });

  it('does not trust a pair seen before the present uid was recorded (create, delete, create with a new uid)', async () => {
    const provider = new ProviderDouble().addVm({ vmid: 1800, node: 'pve1', name: 'web', tags: [OUR_TAG], description: mark('uid-first') });
    const world = makeWorld(provider);
    // uid-first's create saw 1800; then a delete and a create with uid-second, whose create failed before it wrote anything.
    world.registry.present('web', 'uid-second', new Date(OLD.getTime() + 120_000), 3).seen('web', 1800, 'pve1', OLD);

    await sweep(world.deps, { dryRun: false });

    expect(provider.configReads).to.deep.equal([1800]);
    expect(world.enqueuer.deletes.map((d) => [d.name, d.uid, d.reason])).to.deep.equal([['web', 'uid-first', 'reconciler: orphan (present with another uid)']]);
    expect(world.enqueuer.creates.map((c) => c.name)).to.deep.equal(['web']);
  });

  it('trusts neither of two names whose last-known pairs claim one VMID', async () => {
    const { provider, world } = steadyWorld(2);
    // vm-0's VM went by hand; vm-1 was since made at its VMID (and moved there).
    provider.vms.delete(1000);
    provider.vms.delete(1001);
    provider.addVm({ vmid: 1000, node: 'pve1', name: 'vm-1', tags: [OUR_TAG], description: mark('uid-1') });
    world.registry.seen('vm-1', 1000, 'pve1');

    await sweep(world.deps, { dryRun: false });

    expect(provider.configReads).to.deep.equal([1000]);
    expect(world.enqueuer.creates.map((c) => c.name)).to.deep.equal(['vm-0']);
  });
});
