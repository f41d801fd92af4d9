// The seam (SPEC 18): one method per Proxmox API call the provider needs,
// its CallOptions always last. Each method has its route in routes.ts;
// src/proxmox/http-api.ts implements it with got, test/fakes/ in memory,
// and the decorators (decorate.ts: the debug line and metrics, the request
// budget, the daemon slots, the node routing) wrap either, every method
// built from the routes table (test/proxmox/routes-complete.test.ts).
// Shapes follow the answers documented in the seeds (F8, F14, F16, F21).
import type { Readable } from 'node:stream';
import type { Logger } from '../log.js';

export interface CallOptions {
  /** Cancels the request (job cancelled, lock lost, budget spent). */
  signal?: AbortSignal;
  /** The job's logger (OperationContext.logger): the call's debug line then carries the job's id (SPEC 9). */
  logger?: Logger;
  /**
   * A call with no node of its own (version, nodes, cluster resources and status) goes
   * to this node's proxmox.nodes[i].apiUrl instead of proxmox.url (SPEC 28;
   * health uses it to check that URL). A call for a node always goes to
   * that node's apiUrl when it has one.
   */
  via?: string;
  /** Called when the request leaves this process for Proxmox, after every wait (the daemon slots count a call's worst case from it, SPEC 28). */
  onSend?: () => void;
}

/** `UPID:<node>:<pid>:<pstart>:<starttime>:<type>:<id>:<user>:` (F16). */
export type Upid = string;

export interface VersionInfo {
  release: string;
  version: string;
  repoid: string;
}

export interface NodeEntry {
  node: string;
  status: 'online' | 'offline' | 'unknown';
  maxmem?: number;
  mem?: number;
  maxcpu?: number;
  cpu?: number;
  uptime?: number;
}

/**
 * One entry of `GET /cluster/status` (pve-manager API2/Cluster.pm
 * get_status): the cluster itself (`type: 'cluster'`, only in a cluster)
 * and each member node; `local: 1` marks the node that answered, the one
 * whose pveproxy the request entered (the call has no proxyto).
 */
export interface ClusterStatusEntry {
  type: 'cluster' | 'node';
  id: string;
  name: string;
  /** [node] 1 on the answering node, else 0. */
  local?: number;
  /** [node] */
  online?: number;
  nodeid?: number;
  ip?: string;
  level?: string;
  /** [cluster] */
  nodes?: number;
  version?: number;
  quorate?: number;
}

export interface NodeStatus {
  uptime?: number;
  memory?: { total: number; used: number; free: number };
  pveversion?: string;
  [key: string]: unknown;
}

/** An entry of `/cluster/resources` (F8). Mid-clone: no `name`, `lock: clone`, `status: unknown`. */
export interface ClusterResource {
  id: string;
  /** `qemu`, `lxc`, `node`, `storage`, ... */
  type: string;
  node?: string;
  vmid?: number;
  name?: string;
  status?: string;
  template?: 0 | 1;
  tags?: string;
  lock?: string;
  maxmem?: number;
  mem?: number;
  maxcpu?: number;
  maxdisk?: number;
  uptime?: number;
}

/** A qemu config; Proxmox answers numbers for some keys and strings for most. */
export type VmConfig = Record<string, string | number | undefined> & {
  name?: string;
  description?: string;
  tags?: string;
  lock?: string;
  template?: number;
  boot?: string;
  net0?: string;
  ide2?: string;
  agent?: string | number;
  digest?: string;
};

/**
 * One key of `GET .../pending`: `value` is what the VM runs with, `pending`
 * a written value Proxmox holds until the next start (a running VM that
 * cannot hotplug the key), `delete` a key removed the same way.
 */
export interface PendingEntry {
  key: string;
  value?: string | number;
  pending?: string | number;
  delete?: number;
}

/** `status/current` (F14): paused is `status: running, qmpstatus: paused`. */
export interface VmStatus {
  /** `running` or `stopped` */
  status: string;
  qmpstatus?: string;
  name?: string;
  lock?: string;
  uptime?: number;
  agent?: number;
  vmid?: number;
}

/** One VM of `GET /nodes/{node}/qemu?full=1`: vmstatus of qemu-server, `qmpstatus` from QMP as in status/current. */
export interface NodeVmEntry extends VmStatus {
  vmid: number;
}

export interface CloneParams {
  newid: number;
  name: string;
  description: string;
  full: boolean;
  storage?: string;
  target?: string;
}

export interface DestroyParams {
  purge: boolean;
  destroyUnreferencedDisks: boolean;
}

/** `agent/network-get-interfaces` result entries (F21). */
export interface AgentInterface {
  name: string;
  'hardware-address'?: string;
  'ip-addresses'?: { 'ip-address': string; 'ip-address-type': string; prefix?: number }[];
}

export interface StorageEntry {
  storage: string;
  type?: string;
  content?: string;
  active?: number;
  enabled?: number;
  /** 1 when the storage is shared (one store seen from every node), 0 when each node has its own. */
  shared?: number;
}

export interface StorageVolume {
  volid: string;
  format?: string;
  content?: string;
  size?: number;
  ctime?: number;
}

/** `tasks/<upid>/status` (F16). */
export interface TaskStatus {
  /** `running` or `stopped` */
  status: string;
  exitstatus?: string;
  type?: string;
  id?: string;
  node?: string;
  upid?: string;
  starttime?: number;
}

/** The query of `GET /nodes/{node}/tasks` (pve-manager Tasks.pm `node_tasks`). */
export interface NodeTasksQuery {
  /** `archive` (Proxmox's default), `active` or `all`. */
  source?: 'archive' | 'active' | 'all';
  /** Only tasks whose starttime is at or after this epoch second. */
  since?: number;
  /** At most this many entries (Proxmox's default is 50; 0 returns none). */
  limit?: number;
  start?: number;
  /** Matched case-insensitively anywhere in the entry's `user` (an archived token task's `user` has no `!token`). */
  userfilter?: string;
  typefilter?: string;
}

/**
 * One entry of a node's task listing: active tasks first (`status:
 * RUNNING`), then archived ones with `endtime` and `status` = the exit
 * status text (`OK`, `WARNINGS: n`, or the error), newest first.
 */
export interface TaskListEntry {
  upid: Upid;
  node: string;
  pid?: number;
  pstart?: number;
  starttime: number;
  type: string;
  id?: string;
  user: string;
  tokenid?: string;
  endtime?: number;
  status?: string;
}

export interface TaskLogLine {
  n: number;
  t: string;
}

/**
 * `GET /access/permissions` (pve-access-control API2/AccessControl.pm
 * permissions, 510-574): `{ <path>: { <privilege>: <propagate 0|1> } }`,
 * `{}` when the token holds nothing there. A privilege is held when its
 * key is present; the value is only its propagate flag.
 */
export type Permissions = Record<string, Record<string, number>>;

/**
 * One interface of `GET /nodes/{node}/network` (pve-manager API2/Network.pm
 * index): /etc/network/interfaces' entry, `lo` left out, a bridge listed
 * only when the token has SDN.Audit or SDN.Use on
 * `/sdn/zones/localnetwork/<bridge>`.
 */
export interface NetworkInterface {
  iface: string;
  /** `bridge`, `OVSBridge`, `eth`, `bond`, `vlan`, `OVSPort`, ... */
  type: string;
  active?: number;
  autostart?: number;
  exists?: number;
  /** 1 on a VLAN-aware Linux bridge. */
  bridge_vlan_aware?: number;
  bridge_ports?: string;
  bridge_vids?: string;
  method?: string;
  families?: string[];
  [key: string]: unknown;
}

export interface UploadSource {
  /** Exact byte count; sent as the file part's length so Content-Length is exact. */
  size: number;
  /** Opens a fresh stream of exactly `size` bytes (a retry needs a new one). */
  open(): Readable;
}

export interface ProxmoxApi {
  version(opts?: CallOptions): Promise<VersionInfo>;
  nodes(opts?: CallOptions): Promise<NodeEntry[]>;
  nodeStatus(node: string, opts?: CallOptions): Promise<NodeStatus>;
  clusterResources(type: 'vm' | 'node', opts?: CallOptions): Promise<ClusterResource[]>;
  /** `GET /cluster/status`: protected (pvedaemon of the entry node), needs Sys.Audit on `/` (SPEC 28). */
  clusterStatus(opts?: CallOptions): Promise<ClusterStatusEntry[]>;
  getConfig(node: string, vmid: number, opts?: CallOptions): Promise<VmConfig>;
  /** Synchronous `PUT .../config`; values go out as a form body. */
  putConfig(node: string, vmid: number, params: Record<string, string | number>, opts?: CallOptions): Promise<void>;
  statusCurrent(node: string, vmid: number, opts?: CallOptions): Promise<VmStatus>;
  /** `GET .../pending`: each config key with its running value and any value held until the next start. */
  pendingConfig(node: string, vmid: number, opts?: CallOptions): Promise<PendingEntry[]>;
  /** `GET /nodes/{node}/qemu?full=1`: every VM on the node with `status` and `qmpstatus`, as status/current reads them (SPEC 26). */
  nodeVms(node: string, opts?: CallOptions): Promise<NodeVmEntry[]>;
  clone(node: string, templateVmid: number, params: CloneParams, opts?: CallOptions): Promise<Upid>;
  /** `size` as Proxmox takes it: `10G`, `+2G`. A task (F20). */
  resize(node: string, vmid: number, disk: string, size: string, opts?: CallOptions): Promise<Upid>;
  start(node: string, vmid: number, opts?: CallOptions): Promise<Upid>;
  stop(node: string, vmid: number, opts?: CallOptions): Promise<Upid>;
  destroy(node: string, vmid: number, params: DestroyParams, opts?: CallOptions): Promise<Upid>;
  agentInterfaces(node: string, vmid: number, opts?: CallOptions): Promise<AgentInterface[]>;
  /**
   * `POST .../agent/file-write` (SPEC 30): the guest agent writes `content`
   * (text, written as its UTF-8 bytes: sent as their base64 with
   * `encode=0`, which must fit the parameter's 61440 characters) into
   * `file`, created or replaced. Protected; answers nothing.
   */
  agentFileWrite(node: string, vmid: number, file: string, content: string, opts?: CallOptions): Promise<void>;
  storages(node: string, opts?: CallOptions): Promise<StorageEntry[]>;
  /** Multipart upload (`content=iso`, then the file part `filename`), F12. */
  upload(node: string, storage: string, filename: string, source: UploadSource, opts?: CallOptions): Promise<Upid>;
  storageContent(node: string, storage: string, content: 'iso' | 'images', opts?: CallOptions): Promise<StorageVolume[]>;
  /** A task (F13); deleting a missing volume also ends OK. */
  deleteVolume(node: string, storage: string, volid: string, opts?: CallOptions): Promise<Upid>;
  taskStatus(node: string, upid: Upid, opts?: CallOptions): Promise<TaskStatus>;
  taskLog(node: string, upid: Upid, opts?: CallOptions): Promise<TaskLogLine[]>;
  /** The node's task listing: one call answers every task a process waits on there (SPEC 26). */
  nodeTasks(node: string, query: NodeTasksQuery, opts?: CallOptions): Promise<TaskListEntry[]>;
  /** `GET /access/permissions?path=`: the token's effective privileges at that path (`verify`, SPEC 33). */
  permissions(path: string, opts?: CallOptions): Promise<Permissions>;
  /** `GET /nodes/{node}/network`: the node's interfaces, bridges among them (`verify`, SPEC 33). */
  networks(node: string, opts?: CallOptions): Promise<NetworkInterface[]>;
}
