// GET /nodes/{node}/network (pve-manager PVE/API2/Network.pm index,
// 263-500): the node's /etc/network/interfaces, `lo` left out, sorted by
// name (hash_to_array over sorted keys), with the `type` filter.
import type { SimBridge } from '../simulator.js';
import type { Handler } from './context.js';

/** The simulated node's one NIC, the default bridge's port. */
const NIC = 'eno1';

/**
 * Without the `bridges` option every node has `vmbr0` on eno1, VLAN-aware:
 * the simulated cluster's own ubuntu template carries `tag=4` on vmbr0,
 * and on a VLAN-aware bridge Proxmox tags the tap port on vmbr0 itself
 * (PVE::Network tap_plug); a plain bridge would need the `vmbr0v4` bridge
 * and `eno1.4` Proxmox makes at the VM's start, which the simulator does
 * not model.
 */
function bridgesOf(bridges: SimBridge[] | undefined, node: string): SimBridge[] {
  return bridges === undefined ? [{ node, iface: 'vmbr0', vlanAware: true }] : bridges.filter((b) => b.node === node);
}

type Entry = Record<string, unknown> & { iface: string; type: string };

/** A Linux bridge as read_etc_network_interfaces gives it: the first bridge of a node holds the NIC and the node's address. */
function bridgeEntry(bridge: SimBridge, first: boolean, index: number): Entry {
  return {
    iface: bridge.iface,
    type: 'bridge',
    active: 1,
    autostart: 1,
    // `bridge-ports none` is read as no ports at all.
    ...(first ? { bridge_ports: NIC } : {}),
    bridge_stp: 'off',
    bridge_fd: '0',
    ...(bridge.vlanAware ? { bridge_vlan_aware: 1, bridge_vids: '2-4094' } : {}),
    families: ['inet'],
    method: first ? 'static' : 'manual',
    method6: 'manual',
    priority: index + 3,
    ...(first ? { address: `192.0.2.${10 + index}`, netmask: '24', cidr: `192.0.2.${10 + index}/24`, gateway: '192.0.2.1' } : {}),
  };
}

/** Network.pm index's `type` filter: the type itself, or any bridge for any_bridge and any_local_bridge (vnets only with SDN). */
function matchesType(entry: Entry, filter: string | undefined): boolean {
  if (filter === undefined || filter === 'include_sdn') return true;
  if (filter === 'any_bridge' || filter === 'any_local_bridge') return entry.type === 'bridge' || entry.type === 'OVSBridge';
  return entry.type === filter;
}

export const networks: Handler = ({ sim, params }) => {
  const node = sim.state.node(params.node ?? '').node;
  const bridges = bridgesOf(sim.options.bridges, node);
  const nic: Entry = { iface: NIC, type: 'eth', active: 1, exists: 1, families: ['inet'], method: 'manual', method6: 'manual', priority: 2 };
  const entries = [nic, ...bridges.map((b, i) => bridgeEntry(b, i === 0, i))];
  // The bridge access check (495-502): a bridge is listed only with SDN.Audit or SDN.Use on /sdn/zones/localnetwork/<bridge>.
  const visible = entries.filter((e) => e.type !== 'bridge' || ['SDN.Audit', 'SDN.Use'].some((p) => !sim.faults.privilegeDenied(p, `/sdn/zones/localnetwork/${e.iface}`)));
  return visible.filter((e) => matchesType(e, params.type)).sort((a, b) => a.iface.localeCompare(b.iface));
};
