// The simulator's `storages` option (SPEC 33): each node's storages as a
// recorded host listed them, replacing the default set.
import { expect } from 'chai';
import { storagesFromSpecs, type SimStorageSpec } from '../../src/sim/storage-option.js';
import { SimState } from '../../src/sim/state.js';

const spec = (node: string, storage: string, extra: Partial<SimStorageSpec> = {}): SimStorageSpec => ({ node, storage, type: 'dir', content: 'iso', shared: false, enabled: true, active: true, ...extra });

describe("the simulator's storages option (SPEC 33)", () => {
  it('gives each node exactly its listed storages, a shared one the same store everywhere', () => {
    const state = new SimState(['a', 'b'], storagesFromSpecs(['a', 'b'], [spec('a', 'seeds'), spec('a', 'nfs1', { type: 'nfs', shared: true, content: 'images' }), spec('b', 'nfs1', { type: 'nfs', shared: true, content: 'images' })]));
    expect([...(state.nodes.get('a')?.storages.keys() ?? [])]).to.deep.equal(['seeds', 'nfs1']);
    expect([...(state.nodes.get('b')?.storages.keys() ?? [])]).to.deep.equal(['nfs1']);
    expect(state.nodes.get('a')?.storages.get('nfs1')).to.equal(state.nodes.get('b')?.storages.get('nfs1'));
    expect(state.nodes.get('a')?.storages.get('seeds')?.path).to.equal('/mnt/seeds');
    expect(state.storageRefusal('b', 'seeds')).to.equal("storage 'seeds' is not available on node 'b'");
  });

  it('turns enabled: false into storage.cfg: nodes where it is on, or disable when off everywhere', () => {
    const { cfg } = storagesFromSpecs(['a', 'b'], [spec('a', 'x', { enabled: false }), spec('b', 'x'), spec('a', 'y', { enabled: false })]);
    expect(cfg.get('x')).to.deep.equal({ disable: false, nodes: ['b'] });
    expect(cfg.get('y')).to.deep.equal({ disable: true });
  });

  it('refuses a storage of a node the cluster does not have, naming both', () => {
    expect(() => storagesFromSpecs(['a'], [spec('z', 'x')])).to.throw('storages: node z of storage x is not one of a');
  });
});
