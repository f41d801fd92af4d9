// FakeProxmox: an in-memory Proxmox VE behind the seam (ProxmoxApi), for
// the provider tests, the job-service tests and the simulator's contract
// tests. It reproduces what the seeds' facts describe:
//   - a clone creates a locked entry at once, with no name and status
//     `unknown` in /cluster/resources (F8), and a config that is only
//     qemu-server's temporary file (`lock: clone`, audit 12d); it gets
//     its name, mark and config from the template when its task ends;
//   - a VMID is unique in the cluster (pmxcfs): a clone onto a VMID held
//     on the same node is refused synchronously (F4), one held on another
//     node answers a UPID whose task fails with `close (rename) atomic
//     file '/etc/pve/nodes/<node>/qemu-server/<vmid>.conf' failed: File
//     exists` (audit 2b);
//   - clone's early checks in clone_vm's order: `storage 'x' does not
//     exist` (500), no images (F15), the source's lock (F7), `storage`
//     with a linked clone, Datastore.AllocateSpace on each disk's storage
//     (403, `denyAllocateSpace`), `target` only when every disk is on
//     shared storage; with `target` the new VM sits on the source node
//     until its task ends, then moves; `description` is set only when
//     non-empty;
//   - storages disabled (`disabledStorages`) or restricted to some nodes
//     (`storageNodes`), as storage.cfg's `disable` and `nodes` (SPEC 28):
//     storage_check_enabled's texts on clone's `storage` (this node, then
//     the target), upload, content listing and an ISO drive at once, in
//     the clone's task for the template's own disk storage (`clone
//     failed: ...`) and in a volume delete's task; listed `enabled: 0`;
//   - writes to a locked VM answer `VM is locked (clone)` (F7), but a
//     start is accepted and its task waits for the clone (F3);
//   - the checks Proxmox runs inside a task fail the task, not the call
//     (audit 4b, 5): resize's lock, missing disk and storage permission
//     (`denyAllocateSpace` gives the exit `403 Permission check failed
//     (/storage/<s>, Datastore.AllocateSpace)`, audit 4c); start's
//     missing VM, template refusal, lock and `already running`; stop's
//     missing config (its own text) and, for a running VM only, lock;
//     destroy's lock (its running and F2 checks stay
//     synchronous);
//   - /cluster/resources: `lock` and `tags` are live and present only
//     when set; name, status and template come from pvestatd, which with
//     `statdEvery: n` refreshes them only every n-th resources call (or
//     on `statdCycle()`), so a finished clone stays nameless with status
//     `unknown` until then (audit 7); a cycle during a clone samples its
//     temporary config as `VM <vmid>` (audit 3.3), and a destroyed VM's
//     sample stays at its VMID for 30 cycles, shown by a new VM there
//     until its first sample (audit 3.4); by default every call is fresh
//     (a clone in progress unsampled, nothing left of a destroyed VM);
//     a config without a name is `VM <vmid>` wherever vmstatus names it;
//   - tasks run for `taskPolls` status polls, then end OK, `WARNINGS: n`
//     (with WARN lines in their log) or failed (F16); a clone task made to
//     fail (setNextTaskOutcome) removes its half-made VM, as clone_vm's
//     `unlink $conffile` does; their UPID names
//     the node that ran them, and asking another node for its status is
//     `400 upid: no such task`, for its log one line `unable to open file
//     - No such file or directory` (dump_logfile), as the simulator answers; an imgdel UPID's id is the
//     storage id;
//   - the node's task listing (`nodeTasks`, Tasks.pm node_tasks) answers
//     as the simulator does: running tasks first (`status: RUNNING`,
//     `user` as in the UPID), then finished ones (`status` = the exit
//     status, `endtime`, `user` and `tokenid` apart), newest first,
//     filtered by userfilter (substring of `user`), typefilter, since,
//     start and limit; one listing counts as one status poll of every
//     running task on that node; a UPID in `unlisted` is left out of
//     every listing (as a task the index does not show yet);
//   - uploads overwrite (F12), run on `apiNode` when set, and refuse a
//     name without `.iso`; deleting a missing volume ends OK (F13);
//   - the agent's three messages (F5), a guest agent that answers after
//     some calls, paused versus stopped (F14), tags folded to lowercase,
//     split on `;` or `,` only, and refused with a space, `!` or another
//     bad character (F9), ide2 appended to the boot
//     order (F19), grow-only resize as a task (F20), destroy refused
//     while running;
//   - `protection` (audit 7.1): copied by a clone; destroy refused at
//     once (and again in its task) with `can't remove VM <id> - protection
//     mode enabled`, a disk's removal with `can't remove drive '<key>' -
//     ...`; a write's `delete` list runs before its values.
// Every error text comes from fake-errors.ts (tested against fixtures/).
//
// Use:
//   const pve = new FakeProxmox();               // pv1-1 with proxy-seeds, local-lvm, template 9001
//   const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }], taskPolls: 2 });
//   const pve = new FakeProxmox({ nodes: [...], sharedTemplate: true });  // + vm-shared and template 9200 on the first node
//   pve.denyAllocateSpace.add('local-lvm');      // resize task ends `403 Permission check failed (...)`
//   pve.statdEvery = 3; pve.statdCycle();        // pvestatd lag in /cluster/resources
//   pve.addVm({ vmid: 150, node: 'pv1-1', config: { name: 'x' }, status: 'running' });
//   pve.on('clone', (args) => { ... });         // runs before each clone; throw to fail it
//   pve.count('taskStatus'); pve.callsTo('putConfig'); pve.count('nodeTasks');
//   pve.unlisted.add(upid);                      // the listing leaves this task out
//   pve.vm(150)?.config; pve.volumes('pv1-1', 'proxy-seeds');
//   pve.setNextTaskOutcome('qmstart', { exitstatus: 'WARNINGS: 2', log: ['WARN: ...'] });
// Tasks advance only when their status is polled, so pair the fake with
// FakeClock (clock.ts) as the provider's now/sleep and no test waits.
import type {
  AgentInterface,
  CallOptions,
  CloneParams,
  ClusterResource,
  ClusterStatusEntry,
  DestroyParams,
  NodeEntry,
  NodeStatus,
  NodeTasksQuery,
  ProxmoxApi,
  StorageEntry,
  StorageVolume,
  TaskListEntry,
  TaskLogLine,
  TaskStatus,
  UploadSource,
  Upid,
  VersionInfo,
  VmConfig,
  VmStatus,
  NodeVmEntry,
  PendingEntry,
  NetworkInterface,
  Permissions,
} from '../../src/proxmox/api.js';
import type { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import { heldUntilStart, hotplugRefusal } from '../../src/sim/hotplug.js';
import { ALL_PRIVILEGES } from '../../src/sim/privileges.js';
import { fixtureData } from '../support/fixtures.js';
import { fakeErrors, fakeTaskExits } from './fake-errors.js';

export type FakeMethod = keyof ProxmoxApi;

export interface FakeCall {
  method: FakeMethod;
  args: unknown[];
  /** CallOptions.via: the node whose own API URL a cluster-wide call was sent to. */
  via?: string;
}

/** Runs before a call; may change the world, wait, or throw to fail the call. */
export type FakeHook = (args: unknown[], call: FakeCall) => void | Promise<void>;

export interface FakeStorageInit {
  storage: string;
  /** Comma-separated content types, as Proxmox lists them: `iso`, `images`, ... */
  content: string;
  type?: string;
  /** One store seen from every node that lists it (NFS, CephFS): its files are the same under each. */
  shared?: boolean;
}

export interface FakeNodeInit {
  name: string;
  status?: 'online' | 'offline';
  maxmem?: number;
  mem?: number;
  /** Default: local-lvm (images) and proxy-seeds (iso). */
  storages?: FakeStorageInit[];
}

export interface FakeAgent {
  /** Whether qemu-guest-agent runs in the guest once booted. */
  installed: boolean;
  /** Agent calls after a start that answer `QEMU guest agent is not running` before it is up. */
  callsBeforeUp: number;
  /** What the agent reports; default: lo and ens18 with net0's MAC and 192.168.0.<n>. */
  interfaces?: AgentInterface[];
}

export interface FakeVm {
  vmid: number;
  node: string;
  kind: 'qemu' | 'lxc';
  config: VmConfig;
  /** Values written while running that Proxmox holds for the next start (src/sim/hotplug.ts). */
  pending?: VmConfig;
  status: 'running' | 'stopped';
  qmpstatus: 'running' | 'paused' | 'stopped' | 'prelaunch';
  /** True while a clone task fills it: nameless and `unknown` in resources (F8). */
  cloning: boolean;
  agent: FakeAgent;
  agentCallsSinceStart: number;
  /** The `full` flag of the clone that made it. */
  clonedFull?: boolean;
  /** What agent/file-write wrote into the guest, path to content (SPEC 30). */
  files?: Record<string, string>;
}

export interface FakeVmInit {
  vmid: number;
  node?: string;
  kind?: 'qemu' | 'lxc';
  config?: VmConfig;
  status?: 'running' | 'stopped';
  qmpstatus?: 'running' | 'paused' | 'stopped' | 'prelaunch';
  cloning?: boolean;
  agent?: Partial<FakeAgent>;
}

export type TaskOutcome = { exitstatus: string; log?: string[] };

interface FakeTask {
  upid: Upid;
  node: string;
  type: string;
  id: string;
  pollsLeft: number;
  /** False while the task waits (a start behind a clone lock, F3). */
  canEnd: () => boolean;
  /** Applies the task's effect; answers the exit and its log. */
  end: () => TaskOutcome;
  /** Undoes what the call made when the task fails instead (setNextTaskOutcome): clone_vm's `unlink $conffile`. */
  onFail?: () => void;
  done?: TaskOutcome;
}

export interface FakeProxmoxOptions {
  nodes?: FakeNodeInit[];
  /** Status polls a task answers `running` before it ends (default 1). */
  taskPolls?: number;
  /** The node the client talks to: uploads run there (SPEC 16). Default: the target node. */
  apiNode?: string;
  /** Add template 9001 (F19) on every node, at 9001, 9002, ... in node order (default true). */
  templates?: boolean;
  /**
   * Add storage `vm-shared` (images, shared) to every node and template
   * 9200 `debian-13-shared` on the first node, its disks on vm-shared, so
   * any node can clone it with `target` (default false).
   */
  sharedTemplate?: boolean;
  /** pvestatd refreshes the resources entries every n-th clusterResources call; 0 (default) = always fresh. */
  statdEvery?: number;
}

/** pvestatd's view of a VM (RRD): what /cluster/resources shows of it until the next cycle. */
interface StatdEntry {
  name: string;
  status: string;
  template?: 0 | 1;
  maxcpu?: number;
  maxmem?: number;
  /** The boot disk's size; 0 without one (a clone's temporary config, SPEC 28). */
  maxdisk?: number;
}

/** Cycles pmxcfs keeps a destroyed VM's sample: 5 minutes of 10 s cycles (status.c rrd_entry_is_old). */
const RRD_KEEP_CYCLES = 30;

/** vmstatus's name: the config's, or `VM <vmid>` for a config without one (QemuServer.pm). */
function vmstatusName(vm: FakeVm): string {
  const name = vm.config.name === undefined ? '' : String(vm.config.name);
  return name !== '' && name !== '0' ? name : `VM ${vm.vmid}`;
}

const TEMPLATE_9001 = fixtureData<VmConfig>('config_template_9001');
export const DEFAULT_TEMPLATE = 9001;
export const DEFAULT_NODE = 'pv1-1';
export const SEED_STORAGE = 'proxy-seeds';
export const SHARED_STORAGE = 'vm-shared';
export const SHARED_TEMPLATE = 9200;

const TAG_RULE = /^[a-z0-9_][a-z0-9_+.-]*$/i;

function copy<T>(value: T): T {
  return structuredClone(value);
}

export class FakeProxmox implements ProxmoxApi {
  readonly calls: FakeCall[] = [];
  readonly nodeList: (FakeNodeInit & { storages: FakeStorageInit[] })[] = [];
  readonly vms = new Map<number, FakeVm>();
  /** Volumes by `node/storage`, then volid. */
  readonly volumeMap = new Map<string, Map<string, StorageVolume & { bytes: Buffer }>>();
  readonly tasks = new Map<Upid, FakeTask>();
  taskPolls: number;
  apiNode: string | undefined;
  /** Storages whose volume delete is refused with 403 (F13). */
  readonly deleteForbidden = new Set<string>();
  /** Storages without Datastore.AllocateSpace: clone answers 403, resize's task ends `403 Permission check failed (...)`. */
  readonly denyAllocateSpace = new Set<string>();
  /** storage.cfg's `disable`: storage_check_enabled refuses these on every node (SPEC 28). */
  readonly disabledStorages = new Set<string>();
  /** Storages whose status fails (an NFS server down): listed enabled but not active. */
  readonly inactiveStorages = new Set<string>();
  /** storage.cfg's `nodes`: a storage listed here is available only on those nodes (SPEC 28). */
  readonly storageNodes = new Map<string, string[]>();
  /** See FakeProxmoxOptions.statdEvery. */
  statdEvery: number;
  /** Tasks every node listing leaves out. */
  readonly unlisted = new Set<Upid>();
  /** Privileges the token lacks on every path (`permissions` leaves them out). */
  readonly deniedPrivileges = new Set<string>();
  /** A node's interfaces for `networks`; absent: `eno1` and the Linux bridge `vmbr0` on it. */
  readonly networkMap = new Map<string, NetworkInterface[]>();
  private statdCalls = 0;
  private readonly statd = new Map<number, { sample: StatdEntry; cyclesOld: number }>();
  private readonly hooks = new Map<FakeMethod, FakeHook[]>();
  private readonly nextOutcome = new Map<string, TaskOutcome[]>();
  private pid = 0x0a1000;
  private macSeq = 0;

  constructor(options: FakeProxmoxOptions = {}) {
    this.taskPolls = options.taskPolls ?? 1;
    this.apiNode = options.apiNode;
    this.statdEvery = options.statdEvery ?? 0;
    const shared = options.sharedTemplate ?? false;
    for (const node of options.nodes ?? [{ name: DEFAULT_NODE }]) this.addNode(shared ? { ...node, storages: [...defaultStorages(node), sharedStorage()] } : node);
    if (options.templates ?? true) {
      this.nodeList.forEach((n, i) => this.addTemplate(n.name, DEFAULT_TEMPLATE + i));
    }
    const first = this.nodeList[0];
    if (shared && first !== undefined) this.addSharedTemplate(first.name);
    this.statdCurrent();
  }

  /** Template 9200 `debian-13-shared`: template 9001's config with its disks on vm-shared. */
  addSharedTemplate(node: string, vmid = SHARED_TEMPLATE): FakeVm {
    const config = copy(TEMPLATE_9001);
    for (const [key, value] of Object.entries(config)) {
      if (typeof value === 'string' && DISK_KEY.test(key)) config[key] = value.replace(/^local-lvm:base-9001-/, `${SHARED_STORAGE}:base-${vmid}-`);
    }
    return this.addVm({ vmid, node, config: { ...config, name: 'debian-13-shared' } });
  }

  /**
   * Runs a pvestatd cycle: the resources entries show every VM as it is
   * now, a clone in progress too (its temporary config as `VM <vmid>`,
   * audit 3.3); a destroyed VM's entry stays at its VMID for 30 cycles
   * (pmxcfs's 5 minutes, audit 3.4), shown by a new VM there until sampled.
   */
  statdCycle(): void {
    for (const [vmid, kept] of this.statd) {
      if (this.vms.has(vmid)) continue;
      if (kept.cyclesOld >= RRD_KEEP_CYCLES) this.statd.delete(vmid);
      else kept.cyclesOld += 1;
    }
    for (const vm of this.vms.values()) this.statd.set(vm.vmid, { sample: this.statdSample(vm), cyclesOld: 0 });
  }

  /** Without pvestatd's lag (statdEvery 0) every listing is current: a clone in progress is unsampled (F8), nothing lingers. */
  private statdCurrent(): void {
    this.statd.clear();
    for (const vm of this.vms.values()) if (!vm.cloning) this.statd.set(vm.vmid, { sample: this.statdSample(vm), cyclesOld: 0 });
  }

  private statdSample(vm: FakeVm): StatdEntry {
    return {
      name: vmstatusName(vm),
      // F14: resources shows a paused VM as plain running.
      status: vm.status,
      template: vm.config.template === 1 ? 1 : 0,
      maxcpu: Number(vm.config.cores ?? 1),
      maxmem: Number(vm.config.memory ?? 512) * 2 ** 20,
      maxdisk: bootDiskBytes(vm.config),
    };
  }

  // ---- building the world ----

  addNode(init: FakeNodeInit): void {
    this.nodeList.push({ status: 'online', maxmem: 64 * 2 ** 30, mem: 8 * 2 ** 30, ...init, storages: defaultStorages(init) });
  }

  node(name: string): FakeNodeInit & { storages: FakeStorageInit[] } {
    const node = this.nodeList.find((n) => n.name === name);
    if (!node) throw fakeErrors.noSuchNode(name);
    return node;
  }

  /** Template 9001 of F19 at vmid (the constructor puts one on each node: 9001, 9002, ...). */
  addTemplate(node: string, vmid = DEFAULT_TEMPLATE, overrides: VmConfig = {}): FakeVm {
    return this.addVm({ vmid, node, config: { ...copy(TEMPLATE_9001), ...overrides } });
  }

  /** Plants a VM; a VMID is unique in the cluster, so one already held (on any node) is replaced. */
  addVm(init: FakeVmInit): FakeVm {
    const vm: FakeVm = {
      vmid: init.vmid,
      node: init.node ?? this.nodeList[0]?.name ?? DEFAULT_NODE,
      kind: init.kind ?? 'qemu',
      config: copy(init.config ?? {}),
      status: init.status ?? 'stopped',
      qmpstatus: init.qmpstatus ?? init.status ?? 'stopped',
      cloning: init.cloning ?? false,
      agent: { installed: true, callsBeforeUp: 0, ...init.agent },
      agentCallsSinceStart: 0,
    };
    this.vms.set(vm.vmid, vm);
    return vm;
  }

  vm(vmid: number): FakeVm | undefined {
    return this.vms.get(vmid);
  }

  vmsNamed(name: string): FakeVm[] {
    return [...this.vms.values()].filter((v) => v.config.name === name);
  }

  addVolume(node: string, storage: string, volid: string, size = 45056): void {
    this.storageVolumes(node, storage).set(volid, { volid, format: 'iso', content: 'iso', size, ctime: 1790150652, bytes: Buffer.alloc(0) });
  }

  volumes(node: string, storage: string): (StorageVolume & { bytes: Buffer })[] {
    return [...this.storageVolumes(node, storage).values()];
  }

  /** The next task of this type (`qmclone`, `qmstart`, `imgcopy`, ...) ends so instead of its own outcome. */
  setNextTaskOutcome(type: string, outcome: TaskOutcome): void {
    const list = this.nextOutcome.get(type) ?? [];
    list.push(outcome);
    this.nextOutcome.set(type, list);
  }

  // ---- hooks and recording ----

  on(method: FakeMethod, hook: FakeHook): () => void {
    const list = this.hooks.get(method) ?? [];
    list.push(hook);
    this.hooks.set(method, list);
    return () => {
      const at = list.indexOf(hook);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Fails the next `times` calls of method with err (default once). */
  failNext(method: FakeMethod, err: Error, times = 1): void {
    let left = times;
    const off = this.on(method, () => {
      if (left <= 0) return;
      left -= 1;
      if (left === 0) off();
      throw err;
    });
  }

  callsTo(method: FakeMethod): FakeCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  count(method: FakeMethod): number {
    return this.callsTo(method).length;
  }

  /** Calls other than task polls, in order: `clone`, `upload`, ... */
  methods(): FakeMethod[] {
    return this.calls.map((c) => c.method);
  }

  private async enter(method: FakeMethod, args: unknown[], opts: CallOptions | undefined): Promise<void> {
    const call: FakeCall = { method, args, ...(opts?.via === undefined ? {} : { via: opts.via }) };
    this.calls.push(call);
    opts?.signal?.throwIfAborted();
    // The request has left (a hook stands for Proxmox's side of the call).
    opts?.onSend?.();
    for (const hook of [...(this.hooks.get(method) ?? [])]) await hook(args, call);
    opts?.signal?.throwIfAborted();
  }

  // ---- the seam ----

  async version(opts?: CallOptions): Promise<VersionInfo> {
    await this.enter('version', [], opts);
    return { release: '9.2', version: '9.2.20', repoid: '49318c671b82f31e' };
  }

  async nodes(opts?: CallOptions): Promise<NodeEntry[]> {
    await this.enter('nodes', [], opts);
    return this.nodeList.map((n) => this.nodeEntry(n));
  }

  async nodeStatus(node: string, opts?: CallOptions): Promise<NodeStatus> {
    await this.enter('nodeStatus', [node], opts);
    const n = this.nodeList.find((x) => x.name === node);
    if (!n) throw fakeErrors.noSuchNode(node);
    if (n.status === 'offline') throw fakeErrors.noRouteToHost();
    return { uptime: 1209700, pveversion: 'pve-manager/9.2.20', memory: { total: n.maxmem ?? 0, used: n.mem ?? 0, free: (n.maxmem ?? 0) - (n.mem ?? 0) } };
  }

  async clusterResources(type: 'vm' | 'node', opts?: CallOptions): Promise<ClusterResource[]> {
    await this.enter('clusterResources', [type], opts);
    if (type === 'node') {
      return this.nodeList.map((n) => ({ id: `node/${n.name}`, type: 'node', ...this.nodeEntry(n) }));
    }
    this.statdCalls += 1;
    if (this.statdEvery <= 0) this.statdCurrent();
    else if (this.statdCalls % this.statdEvery === 0) this.statdCycle();
    return [...this.vms.values()].map((vm) => this.resourceEntry(vm));
  }

  /**
   * Cluster.pm get_status: the cluster entry, then each node; `local: 1` on
   * the node the request entered, where an upload through the same address
   * runs (`apiNode`; without it each node is its own address, `via`).
   */
  async clusterStatus(opts?: CallOptions): Promise<ClusterStatusEntry[]> {
    await this.enter('clusterStatus', [], opts);
    const entered = this.apiNode ?? opts?.via ?? this.nodeList[0]?.name ?? '';
    // A single node is a standalone host: no cluster entry, nodeid 0 (as the simulator answers).
    if (this.nodeList.length === 1) return [{ type: 'node', id: `node/${entered}`, name: entered, ip: '192.0.2.1', local: 1, nodeid: 0, online: 1, level: '' }];
    const nodes: ClusterStatusEntry[] = this.nodeList.map((n, i) => {
      const online = n.status === 'offline' ? 0 : 1;
      return { type: 'node', id: `node/${n.name}`, name: n.name, nodeid: i + 1, local: n.name === entered ? 1 : 0, online, ip: `192.0.2.${i + 1}`, level: '' };
    });
    const quorate = nodes.filter((n) => n.online === 1).length * 2 > nodes.length ? 1 : 0;
    return [{ type: 'cluster', id: 'cluster', nodes: nodes.length, version: nodes.length, name: 'pv1', quorate }, ...nodes];
  }

  async getConfig(node: string, vmid: number, opts?: CallOptions): Promise<VmConfig> {
    await this.enter('getConfig', [node, vmid], opts);
    const vm = this.qemuOn(node, vmid);
    // Without `current`, Proxmox answers the config with its pending values.
    return copy({ ...vm.config, ...vm.pending });
  }

  async pendingConfig(node: string, vmid: number, opts?: CallOptions): Promise<PendingEntry[]> {
    await this.enter('pendingConfig', [node, vmid], opts);
    const vm = this.qemuOn(node, vmid);
    const pending = vm.pending ?? {};
    const keys = [...new Set([...Object.keys(vm.config), ...Object.keys(pending)])].sort();
    return keys.map((key) => ({ key, ...(vm.config[key] !== undefined ? { value: vm.config[key] } : {}), ...(pending[key] !== undefined ? { pending: pending[key] } : {}) }));
  }

  async putConfig(node: string, vmid: number, params: Record<string, string | number>, opts?: CallOptions): Promise<void> {
    await this.enter('putConfig', [node, vmid, copy(params)], opts);
    const vm = this.qemuOn(node, vmid);
    if (vm.config.lock) throw fakeErrors.vmLocked(vm.config.lock);
    const next: VmConfig = { ...vm.config };
    // $update_vm_api: the deletes first; with protection on, removing a disk dies before anything is written.
    const { delete: deleteList, ...writes } = params;
    for (const key of String(deleteList ?? '').split(/[,;\s]+/).filter((k) => k !== '')) {
      if (isProtected(vm.config) && DISK_KEY.test(key) && vm.config[key] !== undefined) throw fakeErrors.protectionEnabled(`can't remove drive '${key}'`);
      delete next[key];
    }
    const refused: Record<string, string> = {};
    for (const [key, value] of Object.entries(writes)) {
      const refusal = vm.status === 'running' ? hotplugRefusal(key, value, vm.config) : undefined;
      if (refusal !== undefined) refused[key] = refusal;
      if (key === 'tags') {
        // F9: `;` or `,` separate tags; a space or `!` inside one is refused, not split on.
        const tags = String(value).split(/[;,]/).filter((t) => t !== '');
        if (!tags.every((t) => TAG_RULE.test(t))) throw fakeErrors.tagInvalid();
        // get_unique_tags: lowercase, sorted, each once.
        next.tags = [...new Set(tags.map((t) => t.toLowerCase()))].sort().join(';');
      } else if (DISK_KEY.test(key) && typeof value === 'string') {
        next[key] = this.checkedDrive(vm.node, key, value);
        // Any CD-ROM drive written (not a cloud-init one) that the boot order lacks is appended to it (F19, audit 3).
        if (/(^|,)media=cdrom(,|$)/.test(value) && !/cloudinit/.test(value)) next.boot = withInBootOrder(next.boot, key);
      } else if (refusal !== undefined || (vm.status === 'running' && heldUntilStart(key, vm.config))) {
        const pending = (vm.pending ??= {});
        // cleanup_pending: the running value written again is no change.
        if (vm.config[key] === value) delete pending[key];
        else pending[key] = value;
      } else {
        if (vm.pending !== undefined) delete vm.pending[key];
        next[key] = value;
      }
    }
    vm.config = next;
    if (Object.keys(refused).length > 0) throw fakeErrors.hotplugRefused(refused);
  }

  async statusCurrent(node: string, vmid: number, opts?: CallOptions): Promise<VmStatus> {
    await this.enter('statusCurrent', [node, vmid], opts);
    const vm = this.qemuOn(node, vmid);
    const lock = vm.config.lock;
    return {
      vmid,
      status: vm.status,
      qmpstatus: vm.qmpstatus,
      name: vmstatusName(vm),
      ...(lock ? { lock } : {}),
      ...(agentEnabled(vm.config) ? { agent: 1 } : {}),
    };
  }

  async nodeVms(node: string, opts?: CallOptions): Promise<NodeVmEntry[]> {
    await this.enter('nodeVms', [node], opts);
    this.node(node);
    return [...this.vms.values()]
      .filter((vm) => vm.node === node && vm.kind === 'qemu')
      .map((vm) => ({
        vmid: vm.vmid,
        status: vm.status,
        qmpstatus: vm.qmpstatus,
        name: vmstatusName(vm),
        ...(vm.config.lock ? { lock: vm.config.lock } : {}),
      }));
  }

  async clone(node: string, templateVmid: number, params: CloneParams, opts?: CallOptions): Promise<Upid> {
    await this.enter('clone', [node, templateVmid, copy(params)], opts);
    // clone_vm's $load_and_check, in its order.
    const target = params.target !== undefined && params.target !== node ? params.target : undefined;
    if (target !== undefined && !this.nodeList.some((n) => n.name === target)) throw fakeErrors.noSuchClusterNode(target);
    if (params.storage !== undefined) {
      this.checkEnabled(params.storage, node);
      const storage = this.storageAnywhere(params.storage);
      if (!storage.content.split(',').includes('images')) throw fakeErrors.storageNoImages(params.storage);
      if (target !== undefined) this.checkEnabled(params.storage, target);
      if (target !== undefined && storage.shared !== true) throw fakeErrors.cloneTargetStorageNotShared(params.storage);
    }
    const template = this.qemuOn(node, templateVmid);
    if (template.config.lock) throw fakeErrors.vmLocked(String(template.config.lock));
    const full = params.full;
    if (params.storage !== undefined && !full) throw fakeErrors.linkedCloneStorage();
    let sharedVm = true;
    for (const volid of diskVolids(template.config)) {
      const sid = volid.slice(0, volid.indexOf(':'));
      if (this.storageAnywhere(sid).shared !== true) sharedVm = false;
      const checked = params.storage ?? sid;
      if (this.denyAllocateSpace.has(checked)) throw fakeErrors.forbidden(`/storage/${checked}`, 'Datastore.AllocateSpace');
    }
    if (target !== undefined && !sharedVm) throw fakeErrors.cloneTargetLocal(target);
    const held = this.vms.get(params.newid);
    if (held !== undefined && held.node === node) throw fakeErrors.configExists(params.newid);
    if (held !== undefined) {
      // audit 2b: pmxcfs refuses the temporary config inside the worker; nothing is created.
      return this.startTask(node, 'qmclone', String(templateVmid), () => ({
        exitstatus: fakeTaskExits.vmidElsewhere(node, params.newid),
        log: [`creating a clone of VM ${templateVmid} with ID ${params.newid}`],
      }));
    }
    // qemu-server's temporary file until the disks are copied (audit 12d).
    const vm = this.addVm({ vmid: params.newid, node, config: { lock: 'clone', description: 'qmclone temporary file' }, cloning: true });
    vm.clonedFull = full;
    return this.startTask(node, 'qmclone', String(templateVmid), () => {
      // The worker activates the source's disks on their own storages (activate_volumes), then clone_disk allocates on `storage`.
      const sids = [...diskVolids(template.config).map((volid) => volid.slice(0, volid.indexOf(':'))), ...(params.storage === undefined ? [] : [params.storage])];
      const refused = sids.map((sid) => this.enabledRefusal(sid, node)).find((r) => r !== undefined);
      if (refused !== undefined) {
        // clone_vm frees what it made and unlinks the config before it dies.
        this.vms.delete(params.newid);
        return { exitstatus: fakeTaskExits.cloneFailed(refused.message) };
      }
      const config: VmConfig = { ...copy(template.config), name: params.name };
      if (params.description) config.description = params.description;
      else delete config.description;
      delete config.template;
      delete config.digest;
      if (typeof config.net0 === 'string') config.net0 = this.freshMac(config.net0);
      let index = 0;
      for (const [key, value] of Object.entries(config)) {
        if (!DISK_KEY.test(key) || typeof value !== 'string' || /(^|,)media=cdrom(,|$)/.test(value) || !value.includes(':')) continue;
        const [volid = '', ...options] = value.split(',');
        const [sid = '', volname = ''] = volid.split(':');
        const file = full ? `${params.storage ?? sid}:vm-${params.newid}-disk-${index}` : `${sid}:${volname}/vm-${params.newid}-disk-${index}`;
        config[key] = [file, ...options].join(',');
        index += 1;
      }
      vm.config = config;
      vm.cloning = false;
      // move_config_to_node: the clone lands on the target once its task ends.
      if (target !== undefined) vm.node = target;
      return { exitstatus: 'OK', log: [`creating a clone of VM ${templateVmid} with ID ${params.newid}`] };
    }, undefined, () => {
      // clone_vm frees the new volumes and `unlink $conffile` before it dies: no VM is left.
      if (this.vms.get(params.newid) === vm) this.vms.delete(params.newid);
    });
  }

  async resize(node: string, vmid: number, disk: string, size: string, opts?: CallOptions): Promise<Upid> {
    await this.enter('resize', [node, vmid, disk, size], opts);
    // resize_vm loads the config and checks everything inside its worker (audit 4b), under
    // lock_config, so it waits for a clone's lock file as a start does (F3).
    return this.startTask(
      node,
      'resize',
      String(vmid),
      () => {
      const vm = this.vms.get(vmid);
      if (!vm || vm.node !== node || vm.kind !== 'qemu') return { exitstatus: fakeTaskExits.configMissing(node, vmid) };
      if (vm.config.lock) return { exitstatus: fakeTaskExits.vmLocked(String(vm.config.lock)) };
      const current = vm.config[disk];
      if (current === undefined) return { exitstatus: fakeTaskExits.diskMissing(disk) };
      const storage = String(current).split(':')[0] ?? '';
      if (this.denyAllocateSpace.has(storage)) return { exitstatus: fakeTaskExits.forbidden(`/storage/${storage}`, 'Datastore.AllocateSpace') };
      const have = sizeBytes(String(current));
      const want = size.startsWith('+') ? have + sizeBytes(`size=${size.slice(1)}`) : sizeBytes(`size=${size}`);
      if (want < have) return { exitstatus: fakeTaskExits.shrink };
      vm.config[disk] = String(current).replace(/size=[^,]*/, `size=${formatSize(want)}`);
      return { exitstatus: 'OK' };
      },
      () => this.vms.get(vmid)?.cloning !== true,
    );
  }

  async start(node: string, vmid: number, opts?: CallOptions): Promise<Upid> {
    await this.enter('start', [node, vmid], opts);
    // vm_start loads the config inside its worker, under the lock file a clone holds (F3).
    const waited = this.vms.get(vmid)?.cloning === true;
    return this.startTask(
      node,
      'qmstart',
      String(vmid),
      () => {
        const vm = this.vms.get(vmid);
        if (!vm || vm.node !== node || vm.kind !== 'qemu') return { exitstatus: fakeTaskExits.configMissing(node, vmid) };
        const log = waited ? ['trying to acquire lock...', ' OK'] : [];
        if (vm.config.template === 1) return { exitstatus: fakeTaskExits.startTemplate, log };
        // vm_start skips check_lock for a `suspended` lock: it resumes the hibernated VM and drops the lock.
        const resume = vm.config.lock === 'suspended';
        if (vm.config.lock && !resume) return { exitstatus: fakeTaskExits.vmLocked(String(vm.config.lock)), log };
        if (vm.status === 'running') return { exitstatus: fakeTaskExits.alreadyRunning(vmid), log };
        if (resume) {
          for (const key of ['lock', 'vmstate', 'runningmachine', 'runningcpu', 'running-nets-host-mtu']) delete vm.config[key];
          log.push('Resuming suspended VM');
        }
        // vmconfig_apply_pending: what was held for this start becomes the config.
        if (vm.pending !== undefined) vm.config = { ...vm.config, ...vm.pending };
        vm.pending = undefined;
        vm.status = 'running';
        vm.qmpstatus = 'running';
        vm.agentCallsSinceStart = 0;
        return { exitstatus: 'OK', log };
      },
      () => this.vms.get(vmid)?.cloning !== true,
    );
  }

  async stop(node: string, vmid: number, opts?: CallOptions): Promise<Upid> {
    await this.enter('stop', [node, vmid], opts);
    return this.startTask(
      node,
      'qmstop',
      String(vmid),
      () => {
        const vm = this.vms.get(vmid);
        // _do_vm_stop: check_running asserts the config is on this node, then a VM that is not running is left alone.
        if (!vm || vm.node !== node || vm.kind !== 'qemu') return { exitstatus: fakeTaskExits.noConfigOnNode(vmid, node) };
        if (vm.status !== 'running') return { exitstatus: 'OK' };
        if (vm.config.lock) return { exitstatus: fakeTaskExits.vmLocked(String(vm.config.lock)) };
        vm.status = 'stopped';
        vm.qmpstatus = 'stopped';
        return { exitstatus: 'OK' };
      },
      () => this.vms.get(vmid)?.cloning !== true,
    );
  }

  /** The destroy parameters each VM was destroyed with, by VMID. */
  readonly destroyed = new Map<number, DestroyParams>();

  async destroy(node: string, vmid: number, params: DestroyParams, opts?: CallOptions): Promise<Upid> {
    await this.enter('destroy', [node, vmid, copy(params)], opts);
    // destroy_vm's early checks are F2 and the running refusal; its lock check runs in the worker.
    const vm = this.qemuOn(node, vmid);
    if (isProtected(vm.config)) throw fakeErrors.protectionEnabled(`can't remove VM ${vmid}`);
    if (vm.status === 'running') throw fakeErrors.destroyRunning(vmid);
    return this.startTask(node, 'qmdestroy', String(vmid), () => {
      if (isProtected(vm.config)) return { exitstatus: fakeTaskExits.protectionEnabled(vmid) };
      // destroy_vm's check_lock lets a `suspended` lock through.
      if (vm.config.lock && vm.config.lock !== 'suspended') return { exitstatus: fakeTaskExits.vmLocked(String(vm.config.lock)) };
      this.vms.delete(vmid);
      this.destroyed.set(vmid, params);
      return { exitstatus: 'OK' };
    });
  }

  async agentInterfaces(node: string, vmid: number, opts?: CallOptions): Promise<AgentInterface[]> {
    await this.enter('agentInterfaces', [node, vmid], opts);
    const vm = this.agentUp(node, vmid);
    return copy(vm.agent.interfaces ?? this.defaultInterfaces(vm));
  }

  /** Agent.pm file-write (SPEC 30): created or replaced; every directory exists. */
  async agentFileWrite(node: string, vmid: number, file: string, content: string, opts?: CallOptions): Promise<void> {
    await this.enter('agentFileWrite', [node, vmid, file, content], opts);
    const vm = this.agentUp(node, vmid);
    (vm.files ??= {})[file] = content;
  }

  /** assert_agent_available's order (audit 6): an `agent` line at all, running, then the ping, which fails for an agent switched off with `agent: 0`. */
  private agentUp(node: string, vmid: number): FakeVm {
    const vm = this.qemuOn(node, vmid);
    if (vm.config.agent === undefined) throw fakeErrors.agentNotConfigured();
    if (vm.status !== 'running') throw fakeErrors.vmNotRunning(vmid);
    if (!agentEnabled(vm.config)) throw fakeErrors.agentNotRunning();
    vm.agentCallsSinceStart += 1;
    if (vm.qmpstatus === 'paused' || !vm.agent.installed || vm.agentCallsSinceStart <= vm.agent.callsBeforeUp) {
      throw fakeErrors.agentNotRunning();
    }
    return vm;
  }

  async storages(node: string, opts?: CallOptions): Promise<StorageEntry[]> {
    await this.enter('storages', [node], opts);
    // storage_info: a storage this node may not use is listed with enabled and active 0.
    return this.node(node).storages.map((s) => {
      const on = this.enabledRefusal(s.storage, node) === undefined ? 1 : 0;
      const active = on === 1 && !this.inactiveStorages.has(s.storage) ? 1 : 0;
      return { storage: s.storage, type: s.type ?? 'dir', content: s.content, active, enabled: on, shared: s.shared ? 1 : 0 };
    });
  }

  async upload(node: string, storage: string, filename: string, source: UploadSource, opts?: CallOptions): Promise<Upid> {
    await this.enter('upload', [node, storage, filename, { size: source.size }], opts);
    this.isoStorage(node, storage);
    this.checkEnabled(storage, node);
    if (!filename.endsWith('.iso')) throw fakeErrors.uploadWrongExtension();
    const chunks: Buffer[] = [];
    for await (const chunk of source.open()) chunks.push(Buffer.from(chunk as Uint8Array));
    const bytes = Buffer.concat(chunks);
    const volid = `${storage}:iso/${filename}`;
    // The task runs on the node that received the request (SPEC 16).
    return this.startTask(this.apiNode ?? node, 'imgcopy', '', () => {
      this.storageVolumes(node, storage).set(volid, { volid, format: 'iso', content: 'iso', size: bytes.length, ctime: 1790150652, bytes });
      return { exitstatus: 'OK', log: [`cp /var/tmp/pveupload-x /mnt/${storage}/template/iso/${filename}`] };
    });
  }

  async storageContent(node: string, storage: string, content: 'iso' | 'images', opts?: CallOptions): Promise<StorageVolume[]> {
    await this.enter('storageContent', [node, storage, content], opts);
    this.isoStorage(node, storage);
    this.checkEnabled(storage, node);
    return this.volumes(node, storage)
      .filter((v) => v.content === content)
      .map(({ bytes: _bytes, ...v }) => v);
  }

  async deleteVolume(node: string, storage: string, volid: string, opts?: CallOptions): Promise<Upid> {
    await this.enter('deleteVolume', [node, storage, volid], opts);
    this.isoStorage(node, storage);
    if (this.deleteForbidden.has(storage)) throw fakeErrors.forbiddenVolumeDelete(storage);
    // Content.pm: an imgdel UPID's id is the storage id for an ISO.
    return this.startTask(node, 'imgdel', storage, () => {
      // vdisk_free activates the storage inside the task.
      const refused = this.enabledRefusal(storage, node);
      if (refused !== undefined) return { exitstatus: refused.message };
      const existed = this.storageVolumes(node, storage).delete(volid);
      const file = `/mnt/${storage}/template/iso/${volid.split('/').pop() ?? ''}`;
      // F13: a missing volume's delete still ends OK.
      return { exitstatus: 'OK', log: [...(existed ? [] : [`disk image '${file}' does not exist`]), `Removed volume '${volid}'`] };
    });
  }

  async taskStatus(node: string, upid: Upid, opts?: CallOptions): Promise<TaskStatus> {
    await this.enter('taskStatus', [node, upid], opts);
    const task = this.taskOn(node, upid);
    this.advance(task);
    const base = { upid, node: task.node, type: task.type, id: task.id, starttime: 1760600515 };
    return task.done ? { ...base, status: 'stopped', exitstatus: task.done.exitstatus } : { ...base, status: 'running' };
  }

  async taskLog(node: string, upid: Upid, opts?: CallOptions): Promise<TaskLogLine[]> {
    await this.enter('taskLog', [node, upid], opts);
    const task = this.tasks.get(upid);
    // read_task_log checks no file: dump_logfile answers one line for a log this node lacks, and for an empty one.
    if (!task || task.node !== node) return [{ n: 1, t: 'unable to open file - No such file or directory' }];
    const lines = [...(task.done?.log ?? [])];
    if (task.done) lines.push(task.done.exitstatus === 'OK' ? 'TASK OK' : task.done.exitstatus.startsWith('WARNINGS') ? `TASK ${task.done.exitstatus}` : `TASK ERROR: ${task.done.exitstatus}`);
    if (lines.length === 0) return [{ n: 1, t: 'no content' }];
    return lines.map((t, i) => ({ n: i + 1, t }));
  }

  async nodeTasks(node: string, query: NodeTasksQuery, opts?: CallOptions): Promise<TaskListEntry[]> {
    await this.enter('nodeTasks', [node, copy(query)], opts);
    this.node(node);
    const onNode = [...this.tasks.values()].filter((t) => t.node === node && !this.unlisted.has(t.upid));
    for (const task of onNode) this.advance(task);
    const entries = onNode.map((t) => ({ task: t, entry: listEntry(t) })).sort((a, b) => b.entry.starttime - a.entry.starttime || (b.entry.pid ?? 0) - (a.entry.pid ?? 0));
    const source = query.source ?? 'archive';
    let limit = query.limit ?? 50;
    let count = 0;
    const leftOut = (e: TaskListEntry): boolean => {
      if (query.userfilter && !e.user.toLowerCase().includes(query.userfilter.toLowerCase())) return true;
      if (query.typefilter && e.type !== query.typefilter) return true;
      if (query.since !== undefined && e.starttime < query.since) return true;
      if (count++ < (query.start ?? 0)) return true;
      return limit <= 0;
    };
    const out: TaskListEntry[] = [];
    const active = entries.filter((x) => !x.task.done).map((x) => x.entry);
    const archived = entries.filter((x) => x.task.done).map((x) => x.entry);
    for (const e of [...(source === 'archive' ? [] : active), ...(source === 'active' ? [] : archived)]) {
      if (leftOut(e)) continue;
      out.push(e);
      limit -= 1;
    }
    return out;
  }

  /** The token's privileges at `path` (root@pam's token: all of them, F17), minus deniedPrivileges. */
  async permissions(path: string, opts?: CallOptions): Promise<Permissions> {
    await this.enter('permissions', [path], opts);
    const held = ALL_PRIVILEGES.filter((p) => !this.deniedPrivileges.has(p));
    return { [path]: Object.fromEntries(held.map((p) => [p, 1])) };
  }

  async networks(node: string, opts?: CallOptions): Promise<NetworkInterface[]> {
    await this.enter('networks', [node], opts);
    this.node(node);
    return copy(
      this.networkMap.get(node) ?? [
        { iface: 'eno1', type: 'eth', active: 1, exists: 1, method: 'manual', families: ['inet'] },
        { iface: 'vmbr0', type: 'bridge', active: 1, autostart: 1, bridge_ports: 'eno1', bridge_vlan_aware: 1, method: 'static', families: ['inet'] },
      ],
    );
  }

  // ---- internals ----

  /** One poll of a task: it runs for taskPolls of them, then ends once it may. */
  private advance(task: FakeTask): void {
    if (task.done) return;
    if (task.pollsLeft > 0) task.pollsLeft -= 1;
    else if (task.canEnd()) {
      const forced = this.override(task.type);
      // A task made to fail undoes what its call made (clone_vm's `unlink $conffile`).
      if (forced !== undefined && forced.exitstatus !== 'OK' && !/^WARNINGS: \d+$/.test(forced.exitstatus)) task.onFail?.();
      task.done = forced ?? task.end();
    }
  }

  private nodeEntry(n: FakeNodeInit): NodeEntry {
    return { node: n.name, status: n.status ?? 'online', maxmem: n.maxmem ?? 0, mem: n.mem ?? 0, maxcpu: 16, cpu: 0.04, uptime: 1209700 };
  }

  /** `lock` and `tags` live from the config, present only when set; the rest from pvestatd's last cycle (audit 7). */
  private resourceEntry(vm: FakeVm): ClusterResource {
    const base: ClusterResource = { id: `${vm.kind}/${vm.vmid}`, type: vm.kind, vmid: vm.vmid, node: vm.node };
    const lock = vm.config.lock;
    const tags = vm.config.tags;
    const seen = this.statd.get(vm.vmid)?.sample;
    return {
      ...base,
      ...(seen === undefined ? { status: 'unknown' } : seen),
      ...(tags !== undefined && tags !== '' ? { tags: String(tags) } : {}),
      ...(lock ? { lock: String(lock) } : {}),
    };
  }

  private qemuOn(node: string, vmid: number): FakeVm {
    const vm = this.vms.get(vmid);
    if (!vm || vm.node !== node || vm.kind !== 'qemu') throw fakeErrors.configMissing(node, vmid);
    return vm;
  }

  /** $check_drive_param and create_disks for an ISO volume: `media=cdrom` required, the volume must exist. */
  private checkedDrive(node: string, key: string, value: string): string {
    const volid = value.split(',')[0] ?? '';
    const iso = /^([^:]+):iso\/./.exec(volid);
    if (iso === null) return value;
    if (!/(^|,)media=cdrom(,|$)/.test(value)) throw fakeErrors.mediaCdromRequired(key);
    const storage = iso[1] ?? '';
    if (this.node(node).storages.some((s) => s.storage === storage)) this.checkEnabled(storage, node);
    if (!this.node(node).storages.some((s) => s.storage === storage) || !this.storageVolumes(node, storage).has(volid)) throw fakeErrors.volumeMissing(volid);
    return value;
  }

  /** storage_config: the storage as the cluster's storage.cfg has it, on any node. */
  private storageAnywhere(storage: string): FakeStorageInit {
    for (const n of this.nodeList) {
      const found = n.storages.find((s) => s.storage === storage);
      if (found) return found;
    }
    throw fakeErrors.storageMissing(storage);
  }

  /** Storage.pm storage_check_enabled's refusal (after storage_config): `disable`, then the storage's `nodes`. */
  private enabledRefusal(storage: string, node: string): ProxmoxApiError | undefined {
    if (this.disabledStorages.has(storage)) return fakeErrors.storageDisabled(storage);
    const nodes = this.storageNodes.get(storage);
    if (nodes !== undefined && !nodes.includes(node)) return fakeErrors.storageNotOnNode(storage, node);
    return undefined;
  }

  private checkEnabled(storage: string, node: string): void {
    const refused = this.enabledRefusal(storage, node);
    if (refused !== undefined) throw refused;
  }

  private isoStorage(node: string, storage: string): void {
    const s = this.node(node).storages.find((x) => x.storage === storage);
    if (!s) throw fakeErrors.storageMissing(storage);
  }

  private storageVolumes(node: string, storage: string): Map<string, StorageVolume & { bytes: Buffer }> {
    const shared = this.nodeList.find((n) => n.name === node)?.storages.find((s) => s.storage === storage)?.shared === true;
    const key = shared ? `shared/${storage}` : `${node}/${storage}`;
    let map = this.volumeMap.get(key);
    if (!map) {
      map = new Map();
      this.volumeMap.set(key, map);
    }
    return map;
  }

  private taskOn(node: string, upid: Upid): FakeTask {
    const task = this.tasks.get(upid);
    if (!task || task.node !== node) throw fakeErrors.noSuchTask();
    return task;
  }

  private override(type: string): TaskOutcome | undefined {
    return this.nextOutcome.get(type)?.shift();
  }

  private startTask(node: string, type: string, id: string, end: () => TaskOutcome, canEnd: () => boolean = () => true, onFail?: () => void): Upid {
    this.pid += 1;
    const hex = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');
    const upid = `UPID:${node}:${hex(this.pid)}:${hex(this.pid * 3)}:${hex(0x68f0a1b2 + this.pid)}:${type}:${id}:root@pam!provisioner:`;
    this.tasks.set(upid, { upid, node, type, id, pollsLeft: this.taskPolls, canEnd, end, ...(onFail ? { onFail } : {}) });
    return upid;
  }

  private freshMac(net0: string): string {
    this.macSeq += 1;
    const tail = this.macSeq.toString(16).toUpperCase().padStart(4, '0');
    return net0.replace(/=([0-9A-F]{2}:){5}[0-9A-F]{2}/i, `=BC:24:11:00:${tail.slice(0, 2)}:${tail.slice(2)}`);
  }

  private defaultInterfaces(vm: FakeVm): AgentInterface[] {
    const mac = /=((?:[0-9A-F]{2}:){5}[0-9A-F]{2})/i.exec(String(vm.config.net0 ?? ''))?.[1]?.toLowerCase() ?? 'bc:24:11:00:00:01';
    return [
      { name: 'lo', 'hardware-address': '00:00:00:00:00:00', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 }] },
      {
        name: 'ens18',
        'hardware-address': mac,
        'ip-addresses': [
          { 'ip-address': `192.168.${Math.floor(vm.vmid / 250) % 250}.${(vm.vmid % 250) + 1}`, 'ip-address-type': 'ipv4', prefix: 24 },
          { 'ip-address': 'fe80::be24:11ff:fe00:1', 'ip-address-type': 'ipv6', prefix: 64 },
        ],
      },
    ];
  }
}

const DISK_KEY = /^(ide|sata|scsi|virtio)\d+$|^(efidisk0|tpmstate0)$/;

/** A task as the node's listing shows it: from the active file while it runs, from the index once done. */
function listEntry(task: FakeTask): TaskListEntry {
  const [, , pid = '0', pstart = '0', starttime = '0', , , user = ''] = task.upid.split(':');
  const base = { upid: task.upid, node: task.node, pid: parseInt(pid, 16), pstart: parseInt(pstart, 16), starttime: parseInt(starttime, 16), type: task.type, id: task.id };
  if (!task.done) return { ...base, user, status: 'RUNNING' };
  const [owner = user, tokenid] = user.split('!');
  return { ...base, user: owner, ...(tokenid !== undefined ? { tokenid } : {}), endtime: parseInt(starttime, 16) + 1, status: task.done.exitstatus };
}

/** The volids of a config's disks, CD-ROMs left out. */
function diskVolids(config: VmConfig): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (!DISK_KEY.test(key) || typeof value !== 'string' || /(^|,)media=cdrom(,|$)/.test(value)) continue;
    const volid = value.split(',')[0] ?? '';
    if (volid.includes(':')) out.push(volid);
  }
  return out;
}

function defaultStorages(init: FakeNodeInit): FakeStorageInit[] {
  return (
    init.storages ?? [
      { storage: 'local-lvm', content: 'rootdir,images', type: 'lvmthin' },
      { storage: SEED_STORAGE, content: 'iso', type: 'dir' },
    ]
  );
}

function sharedStorage(): FakeStorageInit {
  return { storage: SHARED_STORAGE, content: 'images', type: 'nfs', shared: true };
}

/** check_protection: Perl truth of `protection` (audit 7.1). */
function isProtected(config: VmConfig): boolean {
  const value = config.protection;
  return value !== undefined && value !== 0 && value !== '0' && value !== '';
}

function agentEnabled(config: VmConfig): boolean {
  const agent = String(config.agent ?? '0');
  return /^(1|enabled=1)(,|$)/.test(agent) || /(^|,)enabled=1(,|$)/.test(agent);
}

/** F19: attaching a CD-ROM drive appends it to the boot order. */
function withInBootOrder(boot: string | number | undefined, key: string): string {
  const text = String(boot ?? '');
  const m = /(^|,)order=([^,]*)/.exec(text);
  if (!m) return text;
  const order = (m[2] ?? '').split(';').filter((d) => d !== '');
  if (order.includes(key)) return text;
  return text.replace(/order=[^,]*/, `order=${[...order, key].join(';')}`);
}

const UNITS: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/** vmstatus's maxdisk: the size of the first boot-order disk that is not ide2 (else scsi0), 0 without one. */
function bootDiskBytes(config: VmConfig): number {
  const order = typeof config.boot === 'string' ? (/order=([^,]+)/.exec(config.boot)?.[1]?.split(';') ?? []) : [];
  const key = order.filter((d) => d !== 'ide2').find((d) => typeof config[d] === 'string') ?? 'scsi0';
  const value = config[key];
  return typeof value === 'string' ? sizeBytes(value) : 0;
}

function sizeBytes(disk: string): number {
  const m = /size=(\d+(?:\.\d+)?)([KMGT]?)/.exec(disk);
  return m ? Number(m[1]) * (m[2] ? (UNITS[m[2]] ?? 1) : 1) : 0;
}

function formatSize(bytes: number): string {
  for (const unit of ['T', 'G', 'M', 'K'] as const) {
    const per = UNITS[unit] ?? 1;
    if (bytes % per === 0 && bytes >= per) return `${bytes / per}${unit}`;
  }
  return String(bytes);
}
