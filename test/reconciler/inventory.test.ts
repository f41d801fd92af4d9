// SPEC 5, 14: one answer per VM; two answers that disagree leave it unknown.
import { expect } from 'chai';
import { mergeByVmid } from '../../src/reconciler/inventory.js';
import type { ListedVm } from '../../src/provider/types.js';

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
