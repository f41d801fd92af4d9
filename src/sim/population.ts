// What a fresh simulated cluster holds: on every node template 9001
// (debian-13-template, as captured in config_template_9001, F19) and
// template 9000 (ubuntu, with a Proxmox cloud-init drive on ide2 and VLAN 4
// on net0, the unsuitable one of F19), plus foreign VMs that are not ours.
import { randomUUID } from 'node:crypto';
import { randomMac } from './mac.js';
import type { SimState, SimVm, VmConfig } from './state.js';

export const TEMPLATE_VMIDS = [9000, 9001];
const META = 'creation-qemu=11.0.3,ctime=1790145676';

function template9001(): VmConfig {
  return {
    agent: '1',
    bios: 'ovmf',
    boot: 'order=scsi0',
    cores: 2,
    cpu: 'x86-64-v2-AES',
    efidisk0: 'local-lvm:base-9001-disk-0,efitype=4m,pre-enrolled-keys=0,size=4M',
    machine: 'q35',
    memory: '2048',
    meta: META,
    name: 'debian-13-template',
    net0: `virtio=${randomMac()},bridge=vmbr0`,
    numa: 0,
    ostype: 'l26',
    scsi0: 'local-lvm:base-9001-disk-1,discard=on,iothread=1,size=3G',
    scsihw: 'virtio-scsi-single',
    serial0: 'socket',
    smbios1: `uuid=${randomUUID()}`,
    sockets: 1,
    tags: 'debian',
    template: 1,
    vga: 'serial0',
    vmgenid: randomUUID(),
  };
}

function template9000(): VmConfig {
  return {
    agent: '1',
    boot: 'order=scsi0',
    cores: 2,
    ide2: 'local-lvm:vm-9000-cloudinit,media=cdrom',
    memory: '2048',
    meta: META,
    name: 'ubuntu-24.04-template',
    net0: `virtio=${randomMac()},bridge=vmbr0,tag=4`,
    ostype: 'l26',
    scsi0: 'local-lvm:base-9000-disk-0,size=3584M',
    scsihw: 'virtio-scsi-pci',
    smbios1: `uuid=${randomUUID()}`,
    tags: 'ubuntu',
    template: 1,
    vmgenid: randomUUID(),
  };
}

function vmOf(vmid: number, node: string, config: VmConfig, running: boolean, now: number): SimVm {
  const vm: SimVm = { vmid, node, config, status: running ? 'running' : 'stopped', paused: false, cloning: false, origin: 'seeded' };
  // Long-running foreign VMs: started a week ago, agent long up.
  if (running) vm.startedAt = now - 7 * 24 * 3600 * 1000;
  return vm;
}

function foreignConfig(vmid: number): VmConfig {
  return {
    boot: 'order=scsi0',
    cores: 2,
    memory: '2048',
    name: `app-${vmid}`,
    net0: `virtio=${randomMac()},bridge=vmbr0`,
    ostype: 'l26',
    scsi0: `local-lvm:vm-${vmid}-disk-0,size=32G`,
    scsihw: 'virtio-scsi-single',
    tags: vmid % 3 === 0 ? 'prod;web' : '',
  };
}

/** Fills a fresh state: both templates on every node, then `foreignVms` VMs from VMID 100 spread over the nodes. */
export function populate(state: SimState, foreignVms: number, now: number): void {
  const nodes = [...state.nodes.keys()];
  for (const node of nodes) {
    state.addVm(vmOf(9001, node, template9001(), false, now));
    state.addVm(vmOf(9000, node, template9000(), false, now));
  }
  let vmid = 100;
  for (let i = 0; i < foreignVms; i++) {
    while (state.vmidTaken(vmid)) vmid++;
    const node = nodes[i % nodes.length] as string;
    const config = foreignConfig(vmid);
    if (config.tags === '') delete config.tags;
    state.addVm(vmOf(vmid, node, config, i % 2 === 0, now));
    vmid++;
  }
}
