// src/config/template-source.ts (SPEC 23, 27): where an image's template
// for a node lives, as config gives it. A template on the node itself is
// cloned there with no target, whether config names it by VMID alone or
// with that same node; one on another node is cloned there, to this one.
import { expect } from 'chai';
import { sourceOf } from '../../src/config/template-source.js';

const KEY = 'proxmox.nodes[0].template';

describe('sourceOf (SPEC 23, 27)', () => {
  it('a VMID alone is a template on the node itself: no target', () => {
    expect(sourceOf({ node: 'pv1-1', template: 9001, key: KEY })).to.deep.equal({ vmid: 9001, node: 'pv1-1' });
  });

  it('a template that names the node itself is the same: no target', () => {
    expect(sourceOf({ node: 'pv1-1', template: { vmid: 9001, node: 'pv1-1' }, key: KEY })).to.deep.equal({ vmid: 9001, node: 'pv1-1' });
  });

  it('a template on another node is cloned there, with this node as the target', () => {
    expect(sourceOf({ node: 'pv1-2', template: { vmid: 9300, node: 'pv1-1' }, key: KEY })).to.deep.equal({ vmid: 9300, node: 'pv1-1', target: 'pv1-2' });
  });
});
