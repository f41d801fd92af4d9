// Where each seam method goes (SPEC 18): the HTTP method and the path
// template under /api2/json, named as in the Proxmox API schema. The
// client, the logging decorator and the metrics share this one table.
import type { ProxmoxApi } from './api.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** Path under `/api2/json` with `{placeholders}` as in apidata.json. */
  template: string;
}

export type RouteName = keyof ProxmoxApi;

export const ROUTES: Record<RouteName, Route> = {
  version: { method: 'GET', template: '/version' },
  nodes: { method: 'GET', template: '/nodes' },
  nodeStatus: { method: 'GET', template: '/nodes/{node}/status' },
  clusterResources: { method: 'GET', template: '/cluster/resources' },
  getConfig: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/config' },
  putConfig: { method: 'PUT', template: '/nodes/{node}/qemu/{vmid}/config' },
  statusCurrent: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/status/current' },
  pendingConfig: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/pending' },
  nodeVms: { method: 'GET', template: '/nodes/{node}/qemu' },
  clone: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/clone' },
  resize: { method: 'PUT', template: '/nodes/{node}/qemu/{vmid}/resize' },
  start: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/status/start' },
  stop: { method: 'POST', template: '/nodes/{node}/qemu/{vmid}/status/stop' },
  destroy: { method: 'DELETE', template: '/nodes/{node}/qemu/{vmid}' },
  agentInterfaces: { method: 'GET', template: '/nodes/{node}/qemu/{vmid}/agent/network-get-interfaces' },
  storages: { method: 'GET', template: '/nodes/{node}/storage' },
  upload: { method: 'POST', template: '/nodes/{node}/storage/{storage}/upload' },
  storageContent: { method: 'GET', template: '/nodes/{node}/storage/{storage}/content' },
  deleteVolume: { method: 'DELETE', template: '/nodes/{node}/storage/{storage}/content/{volume}' },
  taskStatus: { method: 'GET', template: '/nodes/{node}/tasks/{upid}/status' },
  taskLog: { method: 'GET', template: '/nodes/{node}/tasks/{upid}/log' },
  nodeTasks: { method: 'GET', template: '/nodes/{node}/tasks' },
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
