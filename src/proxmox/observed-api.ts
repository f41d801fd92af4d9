// The logging decorator (SPEC 9): one debug line per Proxmox call with
// method, path, status, duration and the identifiers, never a secret
// (and the job's id when a job made the call), and one metrics
// observation per call.
import type { Logger } from '../log.js';
import type { ProxmoxCallMetrics } from '../metrics.js';
import type { CallOptions, ProxmoxApi } from './api.js';
import { isApiError } from './api-error.js';
import { ROUTES, fillPath } from './routes.js';
import type { PathValues, RouteName } from './routes.js';

/** What a line may name: the path's values and the calls' own identifiers. */
interface Identifiers {
  node?: string;
  vmid?: number;
  newid?: number;
  name?: string;
  filename?: string;
  storage?: string;
  volid?: string;
  upid?: string;
  disk?: string;
}

/** The status a call ended with: the HTTP status, or 0 when no answer came. */
function statusOf(err: unknown): number {
  return isApiError(err) ? err.status : 0;
}

/** The concrete path; the template when a value is missing (the call itself will say why). */
function pathOf(template: string, values: PathValues): string {
  try {
    return fillPath(template, values);
  } catch {
    return template;
  }
}

export function observeApi(api: ProxmoxApi, logger: Logger, metrics?: ProxmoxCallMetrics): ProxmoxApi {
  async function observe<T>(route: RouteName, ids: Identifiers, opts: CallOptions | undefined, run: () => Promise<T>): Promise<T> {
    const { method, template } = ROUTES[route];
    const pathValues: PathValues = { node: ids.node, vmid: ids.vmid, storage: ids.storage, volume: ids.volid, upid: ids.upid };
    const path = pathOf(template, pathValues);
    const started = performance.now();
    let status = 0;
    let failure: string | undefined;
    try {
      const result = await run();
      status = 200;
      return result;
    } catch (err) {
      status = statusOf(err);
      failure = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      // via: the node whose own apiUrl a cluster-wide call went to (SPEC 28), so health's check of it reads apart from proxmox.url's.
      const line = { call: route, method, path, status, durationMs: Math.round(seconds * 1000), ...ids, ...(opts?.via === undefined ? {} : { via: opts.via }) };
      // A job's call logs through the job's logger, so the line carries its id.
      (opts?.logger ?? logger).debug(failure === undefined ? line : { ...line, error: failure }, 'proxmox api call');
      metrics?.proxmoxCall(route, status === 0 ? 'error' : String(status), seconds);
    }
  }

  return {
    version: (opts?: CallOptions) => observe('version', {}, opts, () => api.version(opts)),
    nodes: (opts) => observe('nodes', {}, opts, () => api.nodes(opts)),
    nodeStatus: (node, opts) => observe('nodeStatus', { node }, opts, () => api.nodeStatus(node, opts)),
    clusterResources: (type, opts) => observe('clusterResources', {}, opts, () => api.clusterResources(type, opts)),
    clusterStatus: (opts) => observe('clusterStatus', {}, opts, () => api.clusterStatus(opts)),
    getConfig: (node, vmid, opts) => observe('getConfig', { node, vmid }, opts, () => api.getConfig(node, vmid, opts)),
    putConfig: (node, vmid, params, opts) =>
      observe('putConfig', { node, vmid }, opts, () => api.putConfig(node, vmid, params, opts)),
    statusCurrent: (node, vmid, opts) =>
      observe('statusCurrent', { node, vmid }, opts, () => api.statusCurrent(node, vmid, opts)),
    pendingConfig: (node, vmid, opts) => observe('pendingConfig', { node, vmid }, opts, () => api.pendingConfig(node, vmid, opts)),
    nodeVms: (node, opts) => observe('nodeVms', { node }, opts, () => api.nodeVms(node, opts)),
    clone: (node, vmid, params, opts) =>
      observe('clone', { node, vmid, newid: params.newid, name: params.name }, opts, () => api.clone(node, vmid, params, opts)),
    resize: (node, vmid, disk, size, opts) =>
      observe('resize', { node, vmid, disk }, opts, () => api.resize(node, vmid, disk, size, opts)),
    start: (node, vmid, opts) => observe('start', { node, vmid }, opts, () => api.start(node, vmid, opts)),
    stop: (node, vmid, opts) => observe('stop', { node, vmid }, opts, () => api.stop(node, vmid, opts)),
    destroy: (node, vmid, params, opts) =>
      observe('destroy', { node, vmid }, opts, () => api.destroy(node, vmid, params, opts)),
    agentInterfaces: (node, vmid, opts) =>
      observe('agentInterfaces', { node, vmid }, opts, () => api.agentInterfaces(node, vmid, opts)),
    storages: (node, opts) => observe('storages', { node }, opts, () => api.storages(node, opts)),
    upload: (node, storage, filename, source, opts) =>
      observe('upload', { node, storage, filename }, opts, () => api.upload(node, storage, filename, source, opts)),
    storageContent: (node, storage, content, opts) =>
      observe('storageContent', { node, storage }, opts, () => api.storageContent(node, storage, content, opts)),
    deleteVolume: (node, storage, volid, opts) =>
      observe('deleteVolume', { node, storage, volid }, opts, () => api.deleteVolume(node, storage, volid, opts)),
    taskStatus: (node, upid, opts) => observe('taskStatus', { node, upid }, opts, () => api.taskStatus(node, upid, opts)),
    taskLog: (node, upid, opts) => observe('taskLog', { node, upid }, opts, () => api.taskLog(node, upid, opts)),
    nodeTasks: (node, query, opts) => observe('nodeTasks', { node }, opts, () => api.nodeTasks(node, query, opts)),
  };
}
