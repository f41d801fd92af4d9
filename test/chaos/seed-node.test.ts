// Regression (found by the long chaos run, SPEC 22 "no seed lacks its
// VM", SPEC 5 step 3): a delete destroyed VM 160620 on pve2 and its worker
// was killed before the seed delete; the retry was superseded by a newer
// create, which cloned the VM again on pve1 and uploaded the seed there.
// The seed left on pve2 belongs to no VM, yet every sweep kept it because
// a VM of its name existed somewhere. A seed is its node's: it is an
// orphan when no VM of its name is on that node, unless the name is
// present and has no VM anywhere yet (its create will upload it again).
import { expect } from 'chai';
import { decide } from '../../src/reconciler/decide.js';
import type { Inventory } from '../../src/reconciler/inventory.js';
import type { ListedVm, SeedIso } from '../../src/provider/types.js';

const NOW = new Date('2026-11-30T12:00:00Z');
const HOUR_AGO_S = NOW.getTime() / 1000 - 3600;

function seed(name: string, node: string): SeedIso {
  return { node, storage: 'proxy-seeds', volid: `proxy-seeds:iso/${name}-seed.iso`, name, ctime: HOUR_AGO_S };
}

function ourVm(name: string, node: string): ListedVm {
  return { vmid: 160620, node, name, uid: `uid-${name}`, createdAt: new Date(NOW.getTime() - 3600_000).toISOString(), status: 'running', ours: true, tagged: true };
}

function inventory(vms: ListedVm[], seeds: SeedIso[]): Inventory {
  return {
    vms,
    seeds,
    entries: new Map([['chaos-52', { name: 'chaos-52', state: 'present', uid: 'uid-chaos-52', generation: 3, updatedAt: new Date(NOW.getTime() - 3600_000).toISOString() }]]),
    generations: new Map([['chaos-52', 3]]),
    unresolved: new Map(),
  };
}

describe('reconciler: a seed on a node where its VM is not is an orphan (SPEC 22, SPEC 5)', () => {
  it('sweeps the seed left on pve2 when the VM of the present name lives on pve1, and keeps the one on pve1', () => {
    const plan = decide(inventory([ourVm('chaos-52', 'pve1')], [seed('chaos-52', 'pve1'), seed('chaos-52', 'pve2')]), NOW, 900);
    expect(plan.orphanSeeds.map((s) => s.ref)).to.deep.equal([{ name: 'chaos-52', node: 'pve2', volid: 'proxy-seeds:iso/chaos-52-seed.iso' }]);
  });

  it('keeps the seeds of a present name that has no VM anywhere yet (its create uploads again)', () => {
    const plan = decide(inventory([], [seed('chaos-52', 'pve1'), seed('chaos-52', 'pve2')]), NOW, 900);
    expect(plan.orphanSeeds).to.deep.equal([]);
  });
});
