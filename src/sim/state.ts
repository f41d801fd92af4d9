// What the simulated cluster holds: nodes, their storages and ISO volumes,
// and qemu VMs (templates included). A VMID is unique across the whole
// cluster, as pmxcfs keeps it (SPEC 23): no two nodes ever hold the same one.
import { createHash } from 'node:crypto';
import { dieError } from './answer-error.js';
import { DRIVE_KEY, driveBytes, parseDrive, storageOf } from './disks.js';
import type { GuestSeed } from './guest/types.js';
import { texts } from './texts.js';

export type VmConfig = Record<string, string | number>;

/** One interface as the guest agent's guest-network-get-interfaces lists it (name, hardware-address, ip-addresses, statistics). */
export type GuestInterface = Record<string, unknown>;

export interface SimVm {
  vmid: number;
  node: string;
  config: VmConfig;
  /** Values written while running that wait for the next start (`GET .../pending`; see hotplug.ts). */
  pending?: VmConfig;
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
  /** What pvestatd last wrote to the RRD for this VM (audit 7); none yet for a fresh clone (see statd.ts). */
  rrd?: StatdSample;
  /** A clone's temporary config (`# qmclone temporary file`, audit 3.3) was in place from..until (ms). */
  temporaryConfig?: { from: number; until: number };
  /** What its guest agent answers to network-get-interfaces when planted so (POST /_sim/vms); else lo and ens18. */
  guestInterfaces?: GuestInterface[];
  /** What the guest read from its seed at its last start (SPEC 29; guest/seed.ts). */
  seed?: GuestSeed;
  /** The instance-id cloud-init ran phone_home for: a per-instance module, not run again on a later boot. */
  phonedHomeFor?: string;
  /** What `agent/file-write` wrote into the guest, path to content (SPEC 30); gone with the VM. */
  guestFiles?: Record<string, string>;
  /** When the VM last changed (ms); pvestatd's next sample after that picks the change up. */
  changedAt: number;
  /** True from a change until pvestatd has sampled it. */
  statdStale: boolean;
}

/** The fields /cluster/resources takes from pvestatd's RRD rather than the live config. */
export interface StatdSample {
  /** vmstatus's name: the config's, or `VM <vmid>` for a config without one. */
  name: string;
  status: 'running' | 'stopped';
  template: 0 | 1;
  maxcpu: number;
  maxmem: number;
  maxdisk: number;
  startedAt?: number;
}

/** Call after any change to a VM at `at` (ms), so its cached /cluster/resources entry is rebuilt. */
export function touched(vm: SimVm, at: number): void {
  vm.cachedEntry = undefined;
  vm.cachedMemory = undefined;
  vm.changedAt = Math.max(vm.changedAt, at);
  vm.statdStale = true;
}

export interface SimVolume {
  volid: string;
  content: 'iso';
  format: 'iso';
  size: number;
  ctime: number;
  sha256: string;
  /** The ISO's bytes, for the guest that boots from it (SPEC 29), when within the bounds of kept-isos.ts; never saved in sim.stateFile. */
  bytes?: Buffer;
}

export interface SimStorage {
  storage: string;
  /** `dir`, `lvmthin`, `nfs` by default; any pve-storage type through the `storages` option. */
  type: string;
  content: string[];
  /** One store seen from every node (its volumes are the same object on each). */
  shared: boolean;
  /** Mount point of a file-based storage; undefined for block storage (lvmthin), which takes no upload. */
  path?: string;
  /** Directory of ISO files, for log lines. */
  isoDir: string;
  volumes: Map<string, SimVolume>;
  /** Listed `active: 0` (the `storages` option): storage_info could not activate it. */
  inactive?: true;
}

/** storage.cfg's `disable` and `nodes` of one storage, cluster-wide like the file (SPEC 28). */
export interface StorageCfg {
  disable: boolean;
  /** The nodes the storage is available on; undefined: every node that has it. */
  nodes?: string[];
}

export interface SimNode {
  node: string;
  storages: Map<string, SimStorage>;
  maxmem: number;
  maxcpu: number;
}

const GIB = 1024 ** 3;

/** The shared storage every node lists, which holds template 9200's disks (SPEC 23). */
export const SHARED_STORAGE = 'vm-shared';

function defaultStorages(): SimStorage[] {
  return [
    { storage: 'local', type: 'dir', content: ['backup', 'vztmpl', 'iso'], shared: false, path: '/var/lib/vz', isoDir: '/var/lib/vz/template/iso', volumes: new Map() },
    { storage: 'local-lvm', type: 'lvmthin', content: ['rootdir', 'images'], shared: false, isoDir: '', volumes: new Map() },
    { storage: 'proxy-seeds', type: 'dir', content: ['iso'], shared: false, path: '/mnt/proxy-seeds', isoDir: '/mnt/proxy-seeds/template/iso', volumes: new Map() },
  ];
}

function sharedStorage(): SimStorage {
  return { storage: SHARED_STORAGE, type: 'nfs', content: ['images'], shared: true, path: `/mnt/pve/${SHARED_STORAGE}`, isoDir: '', volumes: new Map() };
}

/** Each node's storages by id (a shared one the same object on each), and storage.cfg's `disable`/`nodes`. */
export interface NodeStorages {
  byNode: Map<string, Map<string, SimStorage>>;
  cfg: Map<string, StorageCfg>;
}

export class SimState {
  readonly nodes = new Map<string, SimNode>();
  /** `disable` and `nodes` of the storages that have either; POST /_sim/storages sets them. */
  readonly storageCfg = new Map<string, StorageCfg>();
  /** By VMID: one VM per VMID in the whole cluster. */
  private readonly vms = new Map<number, SimVm>();

  /** `storages`: each node's own set and storage.cfg's entries (storage-option.ts builds them), instead of the default set. */
  constructor(nodeNames: string[], storages?: NodeStorages) {
    if (storages !== undefined) {
      const { byNode, cfg } = storages;
      for (const name of nodeNames) this.nodes.set(name, { node: name, storages: byNode.get(name) ?? new Map<string, SimStorage>(), maxmem: 64 * GIB, maxcpu: 16 });
      for (const [id, entry] of cfg) this.storageCfg.set(id, entry);
      return;
    }
    const shared = sharedStorage();
    for (const name of nodeNames) {
      const storages = new Map(defaultStorages().map((s) => [s.storage, s]));
      storages.set(shared.storage, shared);
      this.nodes.set(name, { node: name, storages, maxmem: 64 * GIB, maxcpu: 16 });
    }
  }

  /** The node, or the answer pveproxy gives when it cannot proxy to it. */
  node(name: string): SimNode {
    const node = this.nodes.get(name);
    if (node === undefined) throw dieError(texts.unknownNode(name));
    return node;
  }

  /** The storage as a node sees it, or storage_check_enabled's texts (storage.cfg is cluster-wide). */
  storage(nodeName: string, storage: string): SimStorage {
    const refused = this.storageRefusal(nodeName, storage);
    if (refused !== undefined) throw dieError(refused);
    return this.node(nodeName).storages.get(storage) as SimStorage;
  }

  /**
   * Storage.pm storage_check_enabled's die text for this storage on this
   * node, in its order (storage_config, `disable`, `nodes`), or undefined
   * when the node may use it.
   */
  storageRefusal(nodeName: string, storage: string): string | undefined {
    if (this.storageAnywhere(storage) === undefined) return texts.noSuchStorage(storage);
    const cfg = this.storageCfg.get(storage);
    if (cfg?.disable === true) return texts.storageDisabled(storage);
    const listed = cfg?.nodes === undefined || cfg.nodes.includes(nodeName);
    if (!listed || !this.node(nodeName).storages.has(storage)) return texts.storageNotOnNode(storage, nodeName);
    return undefined;
  }

  /** Every storage id of storage.cfg, each with the entry of the first node that has it. */
  storageIds(): SimStorage[] {
    const out = new Map<string, SimStorage>();
    for (const node of this.nodes.values()) for (const s of node.storages.values()) if (!out.has(s.storage)) out.set(s.storage, s);
    return [...out.values()];
  }

  /** The storage's entry in the cluster's storage.cfg, from whichever node lists it. */
  storageAnywhere(storage: string): SimStorage | undefined {
    for (const node of this.nodes.values()) {
      const found = node.storages.get(storage);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The VM at node/vmid or F2's `Configuration file ... does not exist`. */
  vm(node: string, vmid: number): SimVm {
    const vm = this.findVm(node, vmid);
    if (vm === undefined) throw dieError(texts.configMissing(node, vmid));
    return vm;
  }

  /** The VM when its config is on this node (a VMID held elsewhere is not found here). */
  findVm(node: string, vmid: number): SimVm | undefined {
    const vm = this.vms.get(vmid);
    return vm?.node === node ? vm : undefined;
  }

  /** The VM at this VMID on whatever node holds it. */
  vmAt(vmid: number): SimVm | undefined {
    return this.vms.get(vmid);
  }

  vmidTaken(vmid: number): boolean {
    return this.vms.has(vmid);
  }

  /** Adds a VM; a VMID held anywhere in the cluster is refused, as pmxcfs refuses it. */
  addVm(vm: SimVm): void {
    if (this.vms.has(vm.vmid)) throw dieError(texts.configExists(vm.vmid));
    this.vms.set(vm.vmid, vm);
  }

  removeVm(vm: SimVm): void {
    if (this.vms.get(vm.vmid) === vm) this.vms.delete(vm.vmid);
  }

  allVms(): IterableIterator<SimVm> {
    return this.vms.values();
  }

  get vmCount(): number {
    return this.vms.size;
  }
}

/** The config as `GET .../config` answers it: with pending values, unless `current` asks for the running ones. */
export function configAnswer(vm: SimVm, current = false): VmConfig {
  return { ...vm.config, ...(current ? {} : vm.pending), digest: configDigest(vm) };
}

/** `GET .../pending`: every key with its running value and the value held for the next start. */
export function pendingAnswer(vm: SimVm): { key: string; value?: string | number; pending?: string | number }[] {
  const pending = vm.pending ?? {};
  const keys = [...new Set([...Object.keys(vm.config), ...Object.keys(pending)])].sort();
  return keys.map((key) => ({ key, ...(key in vm.config ? { value: vm.config[key] } : {}), ...(key in pending ? { pending: pending[key] } : {}) }));
}

/** vm_start's vmconfig_apply_pending: the held values become the config. */
export function applyPending(vm: SimVm): void {
  if (vm.pending === undefined) return;
  Object.assign(vm.config, vm.pending);
  vm.pending = undefined;
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

/** The new fields of a SimVm a fresh VM starts with. */
export function freshVmState(at: number): Pick<SimVm, 'changedAt' | 'statdStale'> {
  return { changedAt: at, statdStale: true };
}

/** True when the config enables the guest agent (`agent: 1` or `enabled=1`). */
export function agentEnabled(vm: SimVm): boolean {
  const agent = vm.config.agent;
  if (agent === undefined) return false;
  const first = String(agent).split(',')[0] ?? '';
  const value = first.startsWith('enabled=') ? first.slice('enabled='.length) : first;
  return /^(1|true|yes|on)$/i.test(value);
}
