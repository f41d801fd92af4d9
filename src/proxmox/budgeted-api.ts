// The request budget as a decorator of the seam (SPEC 26): every Proxmox
// call waits for its slot in the budget shared by all worker processes,
// goes to the API it wraps, and hands the slot back with its answer. The
// wait honours the call's signal. Given a function, the budget is the one
// of the address the call goes to (SPEC 28): a call for a node with its
// own proxmox.nodes[i].apiUrl enters that node's pveproxy, so it is paced
// there, apart from the calls entering proxmox.url's.
import type { CallOptions, ProxmoxApi } from './api.js';
import type { RequestBudget } from './request-budget.js';
import type { RouteName } from './routes.js';

/** The budget of the address a call for `node` goes to (undefined: a call with no node and no `via`). */
export type BudgetOf = (node: string | undefined) => RequestBudget;

export function budgetApi(api: ProxmoxApi, budget: RequestBudget | BudgetOf): ProxmoxApi {
  const budgetOf: BudgetOf = typeof budget === 'function' ? budget : () => budget;
  async function pacedOn<T>(node: string | undefined, call: RouteName, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    const finish = await budgetOf(node).take(call, signal);
    try {
      return await run();
    } finally {
      finish();
    }
  }
  /** A call with no node of its own goes where `via` says (node-routed-api.ts). */
  const paced = <T>(call: RouteName, opts: CallOptions | undefined, run: () => Promise<T>): Promise<T> => pacedOn(opts?.via, call, opts?.signal, run);

  return {
    version: (opts) => paced('version', opts, () => api.version(opts)),
    nodes: (opts) => paced('nodes', opts, () => api.nodes(opts)),
    nodeStatus: (node, opts) => pacedOn(node, 'nodeStatus', opts?.signal, () => api.nodeStatus(node, opts)),
    clusterResources: (type, opts) => paced('clusterResources', opts, () => api.clusterResources(type, opts)),
    clusterStatus: (opts) => paced('clusterStatus', opts, () => api.clusterStatus(opts)),
    getConfig: (node, vmid, opts) => pacedOn(node, 'getConfig', opts?.signal, () => api.getConfig(node, vmid, opts)),
    putConfig: (node, vmid, params, opts) => pacedOn(node, 'putConfig', opts?.signal, () => api.putConfig(node, vmid, params, opts)),
    statusCurrent: (node, vmid, opts) => pacedOn(node, 'statusCurrent', opts?.signal, () => api.statusCurrent(node, vmid, opts)),
    pendingConfig: (node, vmid, opts) => pacedOn(node, 'pendingConfig', opts?.signal, () => api.pendingConfig(node, vmid, opts)),
    nodeVms: (node, opts) => pacedOn(node, 'nodeVms', opts?.signal, () => api.nodeVms(node, opts)),
    clone: (node, vmid, params, opts) => pacedOn(node, 'clone', opts?.signal, () => api.clone(node, vmid, params, opts)),
    resize: (node, vmid, disk, size, opts) => pacedOn(node, 'resize', opts?.signal, () => api.resize(node, vmid, disk, size, opts)),
    start: (node, vmid, opts) => pacedOn(node, 'start', opts?.signal, () => api.start(node, vmid, opts)),
    stop: (node, vmid, opts) => pacedOn(node, 'stop', opts?.signal, () => api.stop(node, vmid, opts)),
    destroy: (node, vmid, params, opts) => pacedOn(node, 'destroy', opts?.signal, () => api.destroy(node, vmid, params, opts)),
    agentInterfaces: (node, vmid, opts) => pacedOn(node, 'agentInterfaces', opts?.signal, () => api.agentInterfaces(node, vmid, opts)),
    storages: (node, opts) => pacedOn(node, 'storages', opts?.signal, () => api.storages(node, opts)),
    upload: (node, storage, filename, source, opts) =>
      pacedOn(node, 'upload', opts?.signal, () => api.upload(node, storage, filename, source, opts)),
    storageContent: (node, storage, content, opts) =>
      pacedOn(node, 'storageContent', opts?.signal, () => api.storageContent(node, storage, content, opts)),
    deleteVolume: (node, storage, volid, opts) =>
      pacedOn(node, 'deleteVolume', opts?.signal, () => api.deleteVolume(node, storage, volid, opts)),
    taskStatus: (node, upid, opts) => pacedOn(node, 'taskStatus', opts?.signal, () => api.taskStatus(node, upid, opts)),
    taskLog: (node, upid, opts) => pacedOn(node, 'taskLog', opts?.signal, () => api.taskLog(node, upid, opts)),
    nodeTasks: (node, query, opts) => pacedOn(node, 'nodeTasks', opts?.signal, () => api.nodeTasks(node, query, opts)),
  };
}
