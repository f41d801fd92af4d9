// SPEC 29 (issue 31): which address pool a create's VM takes its lease
// from. Its network is its own bridge and vlanTag, else its node's; with
// no node named, every node serving its image must agree, else the door
// refuses and asks for a node or a bridge.
import { expect } from 'chai';
import { choosePool, type NetworkLimits } from '../../src/addresses/pool-for.js';
import type { NetworkPoolConfig } from '../../src/config/types.js';

const pool = (name: string, bridge: string, vlanTag?: number): NetworkPoolConfig => ({
  name,
  bridge,
  ...(vlanTag === undefined ? {} : { vlanTag }),
  cidr: '127.77.0.0/24',
  dns: [],
  exclude: [],
  reuseCooldownSeconds: 600,
});

const LAN = pool('lan', 'vmbr1');
const VLAN20 = pool('v20', 'vmbr1', 20);
const NETWORKS: NetworkLimits = {
  pools: [LAN, VLAN20],
  nodes: { pve1: { bridge: 'vmbr1' }, pve2: { bridge: 'vmbr1' }, pve3: { bridge: 'vmbr1', vlanTag: 20 }, bare: {} },
};

describe('the address pool of a create (SPEC 29)', () => {
  it("a named node's bridge and tag pick the pool; no tag matches only the pool without one", () => {
    expect(choosePool({ node: 'pve1' }, [], NETWORKS)).to.deep.equal({ kind: 'pool', pool: LAN });
    expect(choosePool({ node: 'pve3' }, [], NETWORKS)).to.deep.equal({ kind: 'pool', pool: VLAN20 });
  });

  it("the create's own bridge and vlanTag win over its node's", () => {
    expect(choosePool({ node: 'pve1', vlanTag: 20 }, [], NETWORKS)).to.deep.equal({ kind: 'pool', pool: VLAN20 });
    expect(choosePool({ node: 'pve3', bridge: 'vmbr2' }, [], NETWORKS)).to.deep.equal({ kind: 'none' });
    expect(choosePool({ node: 'pve1', vlanTag: 30 }, [], NETWORKS), 'a tag no pool has').to.deep.equal({ kind: 'none' });
  });

  it("a node without a bridge (its template's, unknown at the door) is on no pool unless the create names the bridge", () => {
    expect(choosePool({ node: 'bare' }, [], NETWORKS)).to.deep.equal({ kind: 'none' });
    expect(choosePool({ node: 'bare', vlanTag: 20 }, [], NETWORKS)).to.deep.equal({ kind: 'none' });
    expect(choosePool({ node: 'bare', bridge: 'vmbr1' }, [], NETWORKS)).to.deep.equal({ kind: 'pool', pool: LAN });
  });

  it("with no node named, the pool every node serving the image agrees on, a pool or none", () => {
    expect(choosePool({}, ['pve1', 'pve2'], NETWORKS)).to.deep.equal({ kind: 'pool', pool: LAN });
    expect(choosePool({ bridge: 'vmbr9' }, ['pve1', 'pve3'], NETWORKS)).to.deep.equal({ kind: 'none' });
    expect(choosePool({ vlanTag: 20 }, ['pve1', 'pve2', 'pve3'], NETWORKS)).to.deep.equal({ kind: 'pool', pool: VLAN20 });
  });

  it('with no node named, nodes on networks of different pools (or none) are refused, each node with its pool', () => {
    expect(choosePool({}, ['pve1', 'pve3'], NETWORKS)).to.deep.equal({
      kind: 'refused',
      message: 'nodes pve1 and pve3 are on different networks (pve1: pool lan, pve3: pool v20); name a node or a bridge',
    });
    expect(choosePool({}, ['pve1', 'pve2', 'bare'], NETWORKS)).to.deep.equal({
      kind: 'refused',
      message: 'nodes pve1, pve2 and bare are on different networks (pve1: pool lan, pve2: pool lan, bare: no pool); name a node or a bridge',
    });
    expect(choosePool({ bridge: 'vmbr1' }, ['pve1', 'bare'], NETWORKS), 'the bridge named: the nodes agree').to.deep.equal({ kind: 'pool', pool: LAN });
  });
});
