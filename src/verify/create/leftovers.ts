// After `verify --create`'s delete: anything of the create still there,
// read from Proxmox itself (SPEC 33): a VM with its name or its VMID, its
// seed on the node's seed storage.
import type { Config } from '../../config/types.js';
import type { ProxmoxApi } from '../../proxmox/api.js';
import { seedVolid } from '../../provider/seeds.js';

export async function leftBehind(api: ProxmoxApi, config: Config, node: string, name: string, vmid: number | undefined): Promise<string[]> {
  const left: string[] = [];
  const vms = await api.clusterResources('vm');
  for (const vm of vms) {
    if (vm.template === 1 || vm.vmid === undefined) continue;
    if (vm.name === name || vm.vmid === vmid) left.push(`VM ${vm.vmid} (${vm.name ?? 'unnamed'}) on ${vm.node ?? '?'}`);
  }
  const isoStorage = config.proxmox.nodes.find((n) => n.name === node)?.isoStorage;
  if (isoStorage !== undefined) {
    const volid = seedVolid(isoStorage, name);
    const volumes = await api.storageContent(node, isoStorage, 'iso');
    if (volumes.some((v) => v.volid === volid)) left.push(`${volid} on ${node}`);
  }
  return left;
}
