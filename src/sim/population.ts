// What a fresh simulated cluster holds. A VMID is unique in the cluster
// (SPEC 23), so on node i (0-based, in sim.nodes order) the suitable
// debian template (as captured in config_template_9001, F19) sits at
// 9001+i and the unsuitable ubuntu one (a Proxmox cloud-init drive on
// ide2, VLAN 4 on net0, F19) at 9100+i; template 9200 `debian-13-shared`
// on the first node has its disks on the shared storage vm-shared, so any
// node can clone it with `target`. Then foreign VMs that are not ours.
import { randomUUID } from 'node:crypto';
import { randomMac } from './mac.js';
import { SHARED_STORAGE, freshVmState, type SimState, type SimVm, type VmConfig } from './state.js';

/** The suitable template of node i (0-based): pve1 9001, pve2 9002, ... */
const DEBIAN_TEMPLATE_BASE = 9001;
/** The unsuitable template of node i: 9100, 9101, ... */
const UBUNTU_TEMPLATE_BASE = 9100;
/** The template on shared storage, on the first node. */
const SHARED_TEMPLATE = 9200;
const META = 'creation-qemu=11.0.3,ctime=1790145676';

function debianTemplate(vmid: number): VmConfig {
  return {
    agent: '1',
    bios: 'ovmf',
    boot: 'order=scsi0',
    cores: 2,
    cpu: 'x86-64-v2-AES',
    efidisk0: `local-lvm:base-${vmid}-disk-0,efitype=4m,pre-enrolled-keys=0,size=4M`,
    machine: 'q35',
    memory: '2048',
    meta: META,
    name: 'debian-13-template',
    net0: `virtio=${randomMac()},bridge=vmbr0`,
    numa: 0,
    ostype: 'l26',
    scsi0: `local-lvm:base-${vmid}-disk-1,discard=on,iothread=1,size=3G`,
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

/** debian-13-shared: the debian template with its disks on vm-shared. */
function sharedTemplate(vmid: number): VmConfig {
  const config = debianTemplate(vmid);
  for (const key of ['efidisk0', 'scsi0']) config[key] = String(config[key]).replace(/^local-lvm:/, `${SHARED_STORAGE}:`);
  return { ...config, name: 'debian-13-shared' };
}

function ubuntuTemplate(vmid: number): VmConfig {
  return {
    agent: '1',
    boot: 'order=scsi0',
    cores: 2,
    ide2: `local-lvm:vm-${vmid}-cloudinit,media=cdrom`,
    memory: '2048',
    meta: META,
    name: 'ubuntu-24.04-template',
    net0: `virtio=${randomMac()},bridge=vmbr0,tag=4`,
    ostype: 'l26',
    scsi0: `local-lvm:base-${vmid}-disk-0,size=3584M`,
    scsihw: 'virtio-scsi-pci',
    smbios1: `uuid=${randomUUID()}`,
    tags: 'ubuntu',
    template: 1,
    vmgenid: randomUUID(),
  };
}

function vmOf(vmid: number, node: string, config: VmConfig, running: boolean, now: number): SimVm {
  const vm: SimVm = { vmid, node, config, status: running ? 'running' : 'stopped', paused: false, cloning: false, origin: 'seeded', ...freshVmState(0) };
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

/** Fills a fresh state: each node's two templates, the shared one, then `foreignVms` VMs from VMID 100 spread over the nodes. */
export function populate(state: SimState, foreignVms: number, now: number): void {
  const nodes = [...state.nodes.keys()];
  nodes.forEach((node, i) => {
    state.addVm(vmOf(DEBIAN_TEMPLATE_BASE + i, node, debianTemplate(DEBIAN_TEMPLATE_BASE + i), false, now));
    state.addVm(vmOf(UBUNTU_TEMPLATE_BASE + i, node, ubuntuTemplate(UBUNTU_TEMPLATE_BASE + i), false, now));
  });
  const first = nodes[0];
  if (first !== undefined) state.addVm(vmOf(SHARED_TEMPLATE, first, sharedTemplate(SHARED_TEMPLATE), false, now));
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
