// Where each seam method goes (SPEC 18): the HTTP method and the path
// template under /api2/json, named as in the Proxmox API schema, and where
// Proxmox runs it (SPEC 28). The client, the logging decorator, the
// metrics and the daemon slots share this one table.
import type { ProxmoxApi } from './api.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

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
}

export type RouteName = keyof ProxmoxApi;

export const ROUTES: Record<RouteName, Route> = {
  version: { method: 'GET', template: '/version', protected: false, proxyto: false },
  nodes: { method: 'GET', template: '/nodes', protected: false, proxyto: false },
  nodeStatus: { method: 'GET', template: '/nodes/{node}/status', protected: false, proxyto: true },
  clusterResources: { method: 'GET', template: '/cluster/resources', protected: false, proxyto: false },
  clusterStatus: { method: 'GET', template: '/cluster/status', protected: true, proxyto: false },
  getConfig: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/config', protected: false, proxyto: true },
  putConfig: { method: 'PUT', template: '/nodes/{node}/qemu/{vmid}/config', protected: true, proxyto: true },
  statusCurrent: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/status/current', protected: true, proxyto: true },
  pendingConfig: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/pending', protected: false, proxyto: true },
  nodeVms: { method: 'GET', template: '/nodes/{node}/qemu', protected: true, proxyto: true },
  clone: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/clone', protected: true, proxyto: true },
  resize: { method: 'PUT', template: '/nodes/{node}/qemu/{vmid}/resize', protected: true, proxyto: true },
  start: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/status/start', protected: true, proxyto: true },
  stop: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/status/stop', protected: true, proxyto: true },
  destroy: { method: 'DELETE', template: '/nodes/{node}/qemu/{vmid}', protected: true, proxyto: true },
  agentInterfaces: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces', protected: true, proxyto: true },
  storages: { method: 'GET', template: '/nodes/{node}/storage', protected: true, proxyto: true },
  upload: { method: 'POST', template: '/nodes/{node}/storage/{storage}/upload', protected: true, proxyto: false },
  storageContent: { method: 'GET', template: '/nodes/{node}/storage/{storage}/content', protected: true, proxyto: true },
  deleteVolume: { method: 'DELETE', template: '/nodes/{node}/storage/{storage}/content/{volume}', protected: true, proxyto: true },
  taskStatus: { method: 'GET', template: '/nodes/{node}/tasks/{upid}/status', protected: true, proxyto: true },
  taskLog: { method: 'GET', template: '/nodes/{node}/tasks/{upid}/log', protected: true, proxyto: true },
  nodeTasks: { method: 'GET', template: '/nodes/{node}/tasks', protected: false, proxyto: true },
};

export type PathValues = Partial<Record<'node' | 'vmid' | 'storage' | 'volume' | 'upid', string | number>>;

/** Fills a template, escaping every segment, so a volid's `/` travels as `%2F`. */
export function fillPath(template: string, values: PathValues): string {
  return template.replace(/\{([a-z]+)\}/g, (_match, key: string) => {
    const value = values[key as keyof PathValues];
    if (value === undefined || String(value) === '') throw new TypeError(`path ${template} needs a value for {${key}}`);
    return encodeURIComponent(String(value));
  });
}
