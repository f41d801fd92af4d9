// What the simulated cluster holds: nodes, their storages and ISO volumes,
// and qemu VMs (templates included). VMIDs are unique across the cluster,
// except the templates every node carries under the same VMID, as the
// default config (SPEC 7, sim.nodes) describes.
import { createHash } from 'node:crypto';
import { dieError } from './answer-error.js';
import { DRIVE_KEY, driveBytes, parseDrive, storageOf } from './disks.js';
import { texts } from './texts.js';

export type VmConfig = Record<string, string | number>;

export interface SimVm {
  vmid: number;
  node: string;
  config: VmConfig;
  status: 'running' | 'stopped';
  paused: boolean;
  /** When the VM last started (ms); the agent answers some time after (F21). */
  startedAt?: number;
  /** Set while a clone copies the disks: /cluster/resources shows no name (F8). */
  cloning: boolean;
  /** When the task that holds `config.lock` ends (ms), so a start can queue behind it (F3). */
  lockUntil?: number;
  /** How the VM was made, for tests: `full` or `linked` clone, `seeded` at start. */
  origin: 'full' | 'linked' | 'seeded';
  /** The /cluster/resources entry as JSON, split around its uptime; dropped by `touched` (see cluster.ts). */
  cachedEntry?: [string, string];
  /** memoryBytes of the config; dropped by `touched`. */
  cachedMemory?: number;
}

/** Call after any change to a VM, so its cached /cluster/resources entry is rebuilt. */
export function touched(vm: SimVm): void {
  vm.cachedEntry = undefined;
  vm.cachedMemory = undefined;
}

export interface SimVolume {
  volid: string;
  content: 'iso';
  format: 'iso';
  size: number;
  ctime: number;
  sha256: string;
}

export interface SimStorage {
  storage: string;
  type: 'dir' | 'lvmthin';
  content: string[];
  /** Directory of ISO files, for log lines. */
  isoDir: string;
  volumes: Map<string, SimVolume>;
}

export interface SimNode {
  node: string;
  storages: Map<string, SimStorage>;
  maxmem: number;
  maxcpu: number;
}

const GIB = 1024 ** 3;

export function defaultStorages(): SimStorage[] {
  return [
    { storage: 'local', type: 'dir', content: ['backup', 'vztmpl', 'iso'], isoDir: '/var/lib/vz/template/iso', volumes: new Map() },
    { storage: 'local-lvm', type: 'lvmthin', content: ['rootdir', 'images'], isoDir: '', volumes: new Map() },
    { storage: 'proxy-seeds', type: 'dir', content: ['iso'], isoDir: '/mnt/proxy-seeds/template/iso', volumes: new Map() },
  ];
}

export class SimState {
  readonly nodes = new Map<string, SimNode>();
  private readonly vms = new Map<string, SimVm>();
  private readonly vmidUse = new Map<number, number>();

  constructor(nodeNames: string[]) {
    for (const name of nodeNames) {
      this.nodes.set(name, { node: name, storages: new Map(defaultStorages().map((s) => [s.storage, s])), maxmem: 64 * GIB, maxcpu: 16 });
    }
  }

  /** The node, or the answer pveproxy gives when it cannot proxy to it. */
  node(name: string): SimNode {
    const node = this.nodes.get(name);
    if (node === undefined) throw dieError(texts.unknownNode(name));
    return node;
  }

  storage(nodeName: string, storage: string): SimStorage {
    const found = this.node(nodeName).storages.get(storage);
    if (found === undefined) throw dieError(texts.noSuchStorage(storage));
    return found;
  }

  /** The VM at node/vmid or F2's `Configuration file ... does not exist`. */
  vm(node: string, vmid: number): SimVm {
    const vm = this.vms.get(`${node}/${vmid}`);
    if (vm === undefined) throw dieError(texts.configMissing(node, vmid));
    return vm;
  }

  findVm(node: string, vmid: number): SimVm | undefined {
    return this.vms.get(`${node}/${vmid}`);
  }

  vmidTaken(vmid: number): boolean {
    return (this.vmidUse.get(vmid) ?? 0) > 0;
  }

  addVm(vm: SimVm): void {
    const key = `${vm.node}/${vm.vmid}`;
    if (this.vms.has(key)) throw dieError(texts.configExists(vm.vmid));
    this.vms.set(key, vm);
    this.vmidUse.set(vm.vmid, (this.vmidUse.get(vm.vmid) ?? 0) + 1);
  }

  removeVm(vm: SimVm): void {
    if (this.vms.delete(`${vm.node}/${vm.vmid}`)) this.vmidUse.set(vm.vmid, (this.vmidUse.get(vm.vmid) ?? 1) - 1);
  }

  allVms(): IterableIterator<SimVm> {
    return this.vms.values();
  }

  get vmCount(): number {
    return this.vms.size;
  }
}

/** The config as `GET .../config` answers it, with its digest. */
export function configAnswer(vm: SimVm): VmConfig {
  const digest = createHash('sha1').update(JSON.stringify(vm.config)).digest('hex');
  return { ...vm.config, digest };
}

export function configDigest(vm: SimVm): string {
  return createHash('sha1').update(JSON.stringify(vm.config)).digest('hex');
}

/** Disk volumes a VM's config references: `[key, volid, bytes]`, cdroms left out. */
export function vmDisks(vm: SimVm): [string, string, number][] {
  const out: [string, string, number][] = [];
  for (const [key, value] of Object.entries(vm.config)) {
    if (!DRIVE_KEY.test(key) || typeof value !== 'string') continue;
    const drive = parseDrive(value);
    if (drive.options.some(([k, v]) => k === 'media' && v === 'cdrom')) continue;
    if (storageOf(drive.file) === undefined) continue;
    out.push([key, drive.file, driveBytes(drive)]);
  }
  return out;
}

/** The first disk of the boot order that is not ide2 (F19), else scsi0. */
export function bootDiskBytes(vm: SimVm): number {
  const boot = typeof vm.config.boot === 'string' ? /order=([^,]+)/.exec(vm.config.boot)?.[1] : undefined;
  const order = boot?.split(';').filter((d) => d !== 'ide2') ?? [];
  const key = order.find((d) => typeof vm.config[d] === 'string') ?? 'scsi0';
  const value = vm.config[key];
  return typeof value === 'string' ? driveBytes(parseDrive(value)) : 0;
}

export function memoryBytes(vm: SimVm): number {
  if (vm.cachedMemory !== undefined) return vm.cachedMemory;
  const memory = vm.config.memory;
  const mib = typeof memory === 'number' ? memory : Number(/(\d+)/.exec(memory ?? '512')?.[1] ?? 512);
  vm.cachedMemory = mib * 1024 * 1024;
  return vm.cachedMemory;
}

export function cpuCount(vm: SimVm): number {
  return Number(vm.config.cores ?? 1) * Number(vm.config.sockets ?? 1);
}

/** True when the config enables the guest agent (`agent: 1` or `enabled=1`). */
export function agentEnabled(vm: SimVm): boolean {
  const agent = vm.config.agent;
  if (agent === undefined) return false;
  const first = String(agent).split(',')[0] ?? '';
  const value = first.startsWith('enabled=') ? first.slice('enabled='.length) : first;
  return /^(1|true|yes|on)$/i.test(value);
}
