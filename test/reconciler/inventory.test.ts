// SPEC 5, 14: one answer per VM; two answers that disagree leave it unknown.
// One seed per node and volid, the storage's listing over the seed record.
import { expect } from 'chai';
import { mergeByVmid, mergeSeeds } from '../../src/reconciler/inventory.js';
import type { ListedVm, SeedIso } from '../../src/provider/types.js';

const ours = (uid: string, tagged: boolean): ListedVm => ({ vmid: 7, node: 'pve1', name: 'web', uid, ours: true, tagged });

describe('inventory merge (SPEC 5)', () => {
  it('keeps one entry for a VM seen by the tag listing and by its name', () => {
    expect(mergeByVmid([ours('u1', true), ours('u1', false)])).to.deep.equal([ours('u1', true)]);
  });

  it('reports a VM as unknown when its two reads disagree on its uid (its config changed between them)', () => {
    const merged = mergeByVmid([ours('u1', true), ours('u2', false)]);
    expect(merged.map((vm) => vm.ours)).to.deep.equal(['unknown']);
  });

  it('reports a VM as unknown when one read says ours and the other not', () => {
    const merged = mergeByVmid([ours('u1', false), { vmid: 7, node: 'pve1', name: 'web', ours: false, tagged: true }]);
    expect(merged.map((vm) => [vm.ours, vm.tagged])).to.deep.equal([['unknown', true]]);
  });
});

describe('inventory seeds (SPEC 5, 26)', () => {
  const seed = (node: string, ctime: number): SeedIso => ({ node, storage: 'seeds', volid: 'seeds:iso/web-seed.iso', name: 'web', ctime, shared: false });

  it('takes the listed seed (its file\'s real age) over the record of it, so a file uploaded again since its record keeps its grace', () => {
    expect(mergeSeeds([seed('pve1', 2000)], [seed('pve1', 1000)])).to.deep.equal([seed('pve1', 2000)]);
  });

  it('keeps a record whose seed the listing lacks, and one seed per node', () => {
    expect(mergeSeeds([seed('pve2', 2000)], [seed('pve1', 1000)])).to.have.deep.members([seed('pve1', 1000), seed('pve2', 2000)]);
  });
});
