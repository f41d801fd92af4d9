// The request budget as a decorator of the seam (SPEC 26): every Proxmox
// call waits for its slot in the budget shared by all worker processes,
// goes to the API it wraps, and hands the slot back with its answer. The
// wait honours the call's signal.
import type { ProxmoxApi } from './api.js';
import type { RequestBudget } from './request-budget.js';
import type { RouteName } from './routes.js';

export function budgetApi(api: ProxmoxApi, budget: RequestBudget): ProxmoxApi {
  async function paced<T>(call: RouteName, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    const finish = await budget.take(call, signal);
    try {
      return await run();
    } finally {
      finish();
    }
  }

  return {
    version: (opts) => paced('version', opts?.signal, () => api.version(opts)),
    nodes: (opts) => paced('nodes', opts?.signal, () => api.nodes(opts)),
    nodeStatus: (node, opts) => paced('nodeStatus', opts?.signal, () => api.nodeStatus(node, opts)),
    clusterResources: (type, opts) => paced('clusterResources', opts?.signal, () => api.clusterResources(type, opts)),
    clusterStatus: (opts) => paced('clusterStatus', opts?.signal, () => api.clusterStatus(opts)),
    getConfig: (node, vmid, opts) => paced('getConfig', opts?.signal, () => api.getConfig(node, vmid, opts)),
    putConfig: (node, vmid, params, opts) => paced('putConfig', opts?.signal, () => api.putConfig(node, vmid, params, opts)),
    statusCurrent: (node, vmid, opts) => paced('statusCurrent', opts?.signal, () => api.statusCurrent(node, vmid, opts)),
    pendingConfig: (node, vmid, opts) => paced('pendingConfig', opts?.signal, () => api.pendingConfig(node, vmid, opts)),
    nodeVms: (node, opts) => paced('nodeVms', opts?.signal, () => api.nodeVms(node, opts)),
    clone: (node, vmid, params, opts) => paced('clone', opts?.signal, () => api.clone(node, vmid, params, opts)),
    resize: (node, vmid, disk, size, opts) => paced('resize', opts?.signal, () => api.resize(node, vmid, disk, size, opts)),
    start: (node, vmid, opts) => paced('start', opts?.signal, () => api.start(node, vmid, opts)),
    stop: (node, vmid, opts) => paced('stop', opts?.signal, () => api.stop(node, vmid, opts)),
    destroy: (node, vmid, params, opts) => paced('destroy', opts?.signal, () => api.destroy(node, vmid, params, opts)),
    agentInterfaces: (node, vmid, opts) => paced('agentInterfaces', opts?.signal, () => api.agentInterfaces(node, vmid, opts)),
    storages: (node, opts) => paced('storages', opts?.signal, () => api.storages(node, opts)),
    upload: (node, storage, filename, source, opts) =>
      paced('upload', opts?.signal, () => api.upload(node, storage, filename, source, opts)),
    storageContent: (node, storage, content, opts) =>
      paced('storageContent', opts?.signal, () => api.storageContent(node, storage, content, opts)),
    deleteVolume: (node, storage, volid, opts) =>
      paced('deleteVolume', opts?.signal, () => api.deleteVolume(node, storage, volid, opts)),
    taskStatus: (node, upid, opts) => paced('taskStatus', opts?.signal, () => api.taskStatus(node, upid, opts)),
    taskLog: (node, upid, opts) => paced('taskLog', opts?.signal, () => api.taskLog(node, upid, opts)),
    nodeTasks: (node, query, opts) => paced('nodeTasks', opts?.signal, () => api.nodeTasks(node, query, opts)),
  };
}
