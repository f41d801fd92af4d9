// SPEC 33: GET /nodes/{node}/network as pve-manager API2/Network.pm index
// answers it: the NIC and the bridges, sorted, the `type` filter, and a
// bridge left out without SDN.Audit or SDN.Use on it.
import { expect } from 'chai';
import { startTestSim, type TestSim } from './sim-helpers.js';

interface Iface {
  iface: string;
  type: string;
  bridge_vlan_aware?: number;
  bridge_ports?: string;
  active?: number;
}

describe('simulator: the node\'s network (SPEC 33)', () => {
  let sim: TestSim | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('lists eno1 and the VLAN-aware Linux bridge vmbr0 on it on every node by default', async () => {
    sim = await startTestSim();
    for (const node of ['pv1-1', 'pv1-2']) {
      const list = await sim.data<Iface[]>('GET', `/nodes/${node}/network`);
      expect(list.map((i) => [i.iface, i.type])).to.deep.equal([['eno1', 'eth'], ['vmbr0', 'bridge']]);
      expect(list[1]).to.include({ bridge_vlan_aware: 1, bridge_ports: 'eno1', active: 1 });
    }
  });

  it('lists the bridges option\'s bridges of each node, and filters by type as Network.pm does', async () => {
    sim = await startTestSim({ bridges: [{ node: 'pv1-1', iface: 'vmbr0', vlanAware: false }, { node: 'pv1-1', iface: 'vmbr1', vlanAware: true }] });
    const bridges = await sim.data<Iface[]>('GET', '/nodes/pv1-1/network', { type: 'any_bridge' });
    expect(bridges.map((i) => i.iface)).to.deep.equal(['vmbr0', 'vmbr1']);
    expect(bridges[0]).to.not.have.property('bridge_vlan_aware');
    expect(bridges[1]).to.include({ bridge_vlan_aware: 1 });
    expect((await sim.data<Iface[]>('GET', '/nodes/pv1-1/network', { type: 'eth' })).map((i) => i.iface)).to.deep.equal(['eno1']);
    expect((await sim.data<Iface[]>('GET', '/nodes/pv1-2/network', { type: 'bridge' })).map((i) => i.iface)).to.deep.equal([]);
    expect((await sim.api('GET', '/nodes/pv1-1/network', { type: 'wifi' })).status).to.equal(400);
  });

  it('leaves a bridge out when the token has neither SDN.Audit nor SDN.Use on /sdn/zones/localnetwork/<bridge>', async () => {
    sim = await startTestSim();
    await sim.faults({ denyPrivileges: [{ privilege: 'SDN.Use', path: '/sdn/zones/localnetwork/vmbr0' }] });
    expect((await sim.data<Iface[]>('GET', '/nodes/pv1-1/network')).map((i) => i.iface)).to.include('vmbr0');
    await sim.faults({ denyPrivileges: [{ privilege: 'SDN.Use', path: '/sdn' }, { privilege: 'SDN.Audit', path: '/sdn/zones' }] });
    expect((await sim.data<Iface[]>('GET', '/nodes/pv1-1/network')).map((i) => i.iface)).to.deep.equal(['eno1']);
  });
});
