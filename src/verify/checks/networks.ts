// verify's networks group (SPEC 33): the bridge net0 will use on each node
// (nodes[].bridge, else the template's) exists there as a bridge, and
// carries the VLAN tag (nodes[].vlanTag, else the template's). A tag on a
// VLAN-aware Linux bridge or an OVS bridge is set on the VM's port; on a
// plain Linux bridge Proxmox makes a `<bridge>v<tag>` bridge over
// `<port>.<tag>` at the VM's start (pve-common PVE::Network tap_plug,
// activate_bridge_vlan), which needs the bridge to have a physical port.
import type { NodeConfig } from '../../config/types.js';
import type { NetworkInterface } from '../../proxmox/api.js';
import { errorText, fail, ok, skip, type VerifyContext } from '../context.js';
import type { CheckResult } from '../types.js';
import { factsOf } from './privileges.js';

const GROUP = 'networks';
const IFACES = '/etc/network/interfaces';

const isBridge = (i: NetworkInterface): boolean => i.type === 'bridge' || i.type === 'OVSBridge';

/** Whether a `bridge-vids` list (`2 4 100-200`, `2-4094`) holds the tag. */
function vidsInclude(vids: string, tag: number): boolean {
  return vids.split(/[\s,;]+/).some((part) => {
    const [from, to] = part.split('-').map(Number);
    return from !== undefined && tag >= from && tag <= (to ?? from);
  });
}

/** What carrying `tag` on this bridge needs, as a check. */
export function vlanResult(node: string, bridge: NetworkInterface, tag: number, key: string): CheckResult {
  const name = `VLAN ${tag} on ${bridge.iface} on ${node}`;
  if (bridge.type === 'OVSBridge') return ok(GROUP, name, 'an OVS bridge: the tag is set on the VM\'s port');
  if (bridge.bridge_vlan_aware === 1 || (bridge.bridge_vlan_aware as unknown) === true) {
    const vids = bridge.bridge_vids ?? '2-4094';
    if (vidsInclude(vids, tag)) return ok(GROUP, name, `VLAN-aware, bridge-vids ${vids}`);
    return fail(GROUP, name, `${bridge.iface} is VLAN-aware but its bridge-vids (${vids}) leave out ${tag}`, `add ${tag} to bridge-vids of ${bridge.iface} in ${IFACES} on ${node}, then ifreload -a`);
  }
  const ports = (bridge.bridge_ports ?? '').split(/\s+/).filter((p) => p !== '' && p !== 'none');
  if (ports.length === 1) return ok(GROUP, name, `not VLAN-aware: Proxmox makes ${bridge.iface}v${tag} over ${ports[0] ?? ''}.${tag} when a VM starts`);
  const why = ports.length === 0 ? 'has no physical port' : `has ${ports.length} ports`;
  return fail(GROUP, name, `${bridge.iface} is not VLAN-aware and ${why}, so Proxmox cannot make ${bridge.iface}v${tag} for the tag (no physical interface on bridge '${bridge.iface}')`, `make ${bridge.iface} VLAN-aware on ${node} (bridge-vlan-aware yes in ${IFACES}, then ifreload -a), or set ${key} to a bridge that is`);
}

async function checkNode(ctx: VerifyContext, node: NodeConfig, index: number, listings: NetworkInterface[][]): Promise<CheckResult[]> {
  const state = ctx.inventory.nodes.find((n) => n.node === node.name)?.status;
  if (state !== undefined && state !== 'online') return [skip(GROUP, `networks on ${node.name}`, `node ${node.name} is ${state}`)];
  const template = (await ctx.templates()).find((t) => t.node === node.name && t.config !== undefined);
  const facts = template?.config === undefined ? undefined : factsOf(template.node, template.vmid, template.config);
  const bridgeName = node.bridge ?? facts?.bridge;
  const tag = node.vlanTag ?? facts?.tag;
  const bridgeKey = node.bridge !== undefined ? `proxmox.nodes[${index}].bridge` : `the template's net0 (or set proxmox.nodes[${index}].bridge)`;
  if (bridgeName === undefined) return [skip(GROUP, `bridge on ${node.name}`, 'no bridge configured and no template net0 read')];
  let list: NetworkInterface[];
  try {
    list = await ctx.api.networks(node.name);
  } catch (err) {
    return [fail(GROUP, `bridge ${bridgeName} on ${node.name}`, errorText(err), `check that node ${node.name} answers GET /nodes/${node.name}/network`)];
  }
  listings[index] = list;
  const bridge = list.find((i) => i.iface === bridgeName);
  const name = `bridge ${bridgeName} on ${node.name}`;
  if (bridge === undefined) return [fail(GROUP, name, `no interface ${bridgeName} on ${node.name} (or the token lacks SDN.Use on /sdn/zones/localnetwork/${bridgeName})`, `create bridge ${bridgeName} on ${node.name} (System > Network > Create > Linux Bridge), or fix ${bridgeKey}`)];
  if (!isBridge(bridge)) return [fail(GROUP, name, `${bridgeName} on ${node.name} is a ${bridge.type}, not a bridge`, `fix ${bridgeKey}: name a Linux or OVS bridge`)];
  const exists = ok(GROUP, name, `${bridge.type === 'OVSBridge' ? 'OVS bridge' : 'Linux bridge'}${bridge.active === 1 ? ', active' : ''}`);
  const tagKey = node.vlanTag !== undefined ? `proxmox.nodes[${index}].bridge` : bridgeKey;
  return tag === undefined ? [exists] : [exists, vlanResult(node.name, bridge, tag, tagKey)];
}

export async function checkNetworks(ctx: VerifyContext): Promise<CheckResult[]> {
  const listings: NetworkInterface[][] = [];
  const perNode = await Promise.all(ctx.config.proxmox.nodes.map((node, i) => checkNode(ctx, node, i, listings)));
  ctx.config.proxmox.nodes.forEach((node, i) => {
    for (const iface of (listings[i] ?? []).filter(isBridge)) ctx.inventory.bridges.push({ node: node.name, iface: iface.iface, vlanAware: iface.type === 'OVSBridge' || Boolean(iface.bridge_vlan_aware) });
  });
  return perNode.flat();
}
