// Where each seam method goes (SPEC 18): the HTTP method and the path
// template under /api2/json, named as in the Proxmox API schema, where
// Proxmox runs it (SPEC 28), and what of its arguments names the call.
// The client, the one decorator of the seam (decorate.ts: the log line and
// metrics, the request budget, the daemon slots, the node routing) and the
// simulator's route check (test/proxmox/routes-complete.test.ts) share
// this one table.
import type { CallOptions, ProxmoxApi } from './api.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export type RouteName = keyof ProxmoxApi;

/** A seam method's arguments before its CallOptions, always its last parameter. */
export type ArgsOf<K extends RouteName> = Required<Parameters<ProxmoxApi[K]>> extends [...infer Before, CallOptions] ? Before : never;

/**
 * What a call names: its path values (`volid` fills `{volume}`) and the
 * identifiers its log line carries (SPEC 9), never a secret. `node` is
 * set exactly when the template has `{node}`.
 */
export interface CallIds {
  node?: string;
  vmid?: number;
  newid?: number;
  name?: string;
  filename?: string;
  storage?: string;
  volid?: string;
  upid?: string;
  disk?: string;
  /** The ACL path a permissions read asks about (`/vms/9001`). */
  aclPath?: string;
}

export interface Route {
  method: HttpMethod;
  /** Path under `/api2/json` with `{placeholders}` as in apidata.json. */
  template: string;
  /**
   * Registered `protected => 1`: pveproxy hands it to a pvedaemon worker
   * (3 per node), which runs it to its end (pve-http-server HTTPServer.pm
   * rest_handler); the rest run in pveproxy. Read from the Perl modules
   * (qemu-server API2/Qemu.pm and Qemu/Agent.pm, pve-manager API2/Nodes.pm,
   * Cluster.pm, Tasks.pm, pve-storage API2/Storage/Status.pm, Content.pm).
   */
  protected: boolean;
  /** Registered `proxyto => 'node'`: it runs on `{node}`; without it, on the node whose pveproxy the request entered. */
  proxyto: boolean;
  /** How many arguments come before the CallOptions (their place in the argument list). */
  arity: number;
}

/** A route with what a decorator reads from its method's arguments, typed by them. */
export interface RouteOf<K extends RouteName> extends Route {
  arity: ArgsOf<K>['length'];
  ids: (...args: ArgsOf<K>) => CallIds;
}

const none = (): CallIds => ({});
const onNode = (node: string): CallIds => ({ node });
const onVm = (node: string, vmid: number): CallIds => ({ node, vmid });
const onStorage = (node: string, storage: string): CallIds => ({ node, storage });
const onTask = (node: string, upid: string): CallIds => ({ node, upid });

export const ROUTES: { readonly [K in RouteName]: RouteOf<K> } = {
  version: { method: 'GET', template: '/version', protected: false, proxyto: false, arity: 0, ids: none },
  nodes: { method: 'GET', template: '/nodes', protected: false, proxyto: false, arity: 0, ids: none },
  nodeStatus: { method: 'GET', template: '/nodes/{node}/status', protected: false, proxyto: true, arity: 1, ids: onNode },
  clusterResources: { method: 'GET', template: '/cluster/resources', protected: false, proxyto: false, arity: 1, ids: none },
  clusterStatus: { method: 'GET', template: '/cluster/status', protected: true, proxyto: false, arity: 0, ids: none },
  getConfig: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/config', protected: false, proxyto: true, arity: 2, ids: onVm },
  putConfig: { method: 'PUT', template: '/nodes/{node}/qemu/{vmid}/config', protected: true, proxyto: true, arity: 3, ids: onVm },
  statusCurrent: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/status/current', protected: true, proxyto: true, arity: 2, ids: onVm },
  pendingConfig: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/pending', protected: false, proxyto: true, arity: 2, ids: onVm },
  nodeVms: { method: 'GET', template: '/nodes/{node}/qemu', protected: true, proxyto: true, arity: 1, ids: onNode },
  clone: {
    method: 'POST',
    template: '/nodes/{node}/qemu/{vmid}/clone',
    protected: true,
    proxyto: true,
    arity: 3,
    ids: (node, vmid, params) => ({ node, vmid, newid: params.newid, name: params.name }),
  },
  resize: { method: 'PUT', template: '/nodes/{node}/qemu/{vmid}/resize', protected: true, proxyto: true, arity: 4, ids: (node, vmid, disk) => ({ node, vmid, disk }) },
  start: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/status/start', protected: true, proxyto: true, arity: 2, ids: onVm },
  stop: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/status/stop', protected: true, proxyto: true, arity: 2, ids: onVm },
  destroy: { method: 'DELETE', template: '/nodes/{node}/qemu/{vmid}', protected: true, proxyto: true, arity: 3, ids: onVm },
  agentInterfaces: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces', protected: true, proxyto: true, arity: 2, ids: onVm },
  // The file's content never goes into a log line (it may be keys); the VM does.
  agentFileWrite: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/agent/file-write', protected: true, proxyto: true, arity: 4, ids: onVm },
  storages: { method: 'GET', template: '/nodes/{node}/storage', protected: true, proxyto: true, arity: 1, ids: onNode },
  upload: {
    method: 'POST',
    template: '/nodes/{node}/storage/{storage}/upload',
    protected: true,
    proxyto: false,
    arity: 4,
    ids: (node, storage, filename) => ({ node, storage, filename }),
  },
  storageContent: { method: 'GET', template: '/nodes/{node}/storage/{storage}/content', protected: true, proxyto: true, arity: 3, ids: onStorage },
  deleteVolume: {
    method: 'DELETE',
    template: '/nodes/{node}/storage/{storage}/content/{volume}',
    protected: true,
    proxyto: true,
    arity: 3,
    ids: (node, storage, volid) => ({ node, storage, volid }),
  },
  taskStatus: { method: 'GET', template: '/nodes/{node}/tasks/{upid}/status', protected: true, proxyto: true, arity: 2, ids: onTask },
  taskLog: { method: 'GET', template: '/nodes/{node}/tasks/{upid}/log', protected: true, proxyto: true, arity: 2, ids: onTask },
  nodeTasks: { method: 'GET', template: '/nodes/{node}/tasks', protected: false, proxyto: true, arity: 2, ids: onNode },
  // pve-access-control API2/AccessControl.pm permissions: neither protected nor proxyto.
  permissions: { method: 'GET', template: '/access/permissions', protected: false, proxyto: false, arity: 1, ids: (aclPath) => ({ aclPath }) },
  // pve-manager API2/Network.pm index: proxyto node, not protected.
  networks: { method: 'GET', template: '/nodes/{node}/network', protected: false, proxyto: true, arity: 1, ids: onNode },
};

/** Every seam method, in the table's order. */
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

export type PathValues = Partial<Record<'node' | 'vmid' | 'storage' | 'volume' | 'upid', string | number>>;

/** The path values among a call's identifiers. */
export function pathValuesOf(ids: CallIds): PathValues {
  return { node: ids.node, vmid: ids.vmid, storage: ids.storage, volume: ids.volid, upid: ids.upid };
}

/** Fills a template, escaping every segment, so a volid's `/` travels as `%2F`. */
export function fillPath(template: string, values: PathValues): string {
  return template.replace(/\{([a-z]+)\}/g, (_match, key: string) => {
    const value = values[key as keyof PathValues];
    if (value === undefined || String(value) === '') throw new TypeError(`path ${template} needs a value for {${key}}`);
    return encodeURIComponent(String(value));
  });
}
