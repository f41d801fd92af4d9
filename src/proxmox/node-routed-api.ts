// proxmox.nodes[i].apiUrl (SPEC 28): a call for a node goes to that
// node's own pveproxy when it has one, so no upload passes through another
// node's pvedaemon (pve-storage Status.pm upload has no proxyto: the entry
// node runs its SSH steps, audit 4.4). A call with no node of its own goes
// to proxmox.url, or to the apiUrl of `opts.via`.
import type { CallOptions, ProxmoxApi } from './api.js';

export function routeByNode(main: ProxmoxApi, byNode: ReadonlyMap<string, ProxmoxApi>): ProxmoxApi {
  if (byNode.size === 0) return main;
  const to = (node: string): ProxmoxApi => byNode.get(node) ?? main;
  const via = (opts: CallOptions | undefined): ProxmoxApi => (opts?.via === undefined ? main : to(opts.via));
  return {
    version: (opts) => via(opts).version(opts),
    nodes: (opts) => via(opts).nodes(opts),
    clusterResources: (type, opts) => via(opts).clusterResources(type, opts),
    clusterStatus: (opts) => via(opts).clusterStatus(opts),
    nodeStatus: (node, opts) => to(node).nodeStatus(node, opts),
    getConfig: (node, vmid, opts) => to(node).getConfig(node, vmid, opts),
    putConfig: (node, vmid, params, opts) => to(node).putConfig(node, vmid, params, opts),
    statusCurrent: (node, vmid, opts) => to(node).statusCurrent(node, vmid, opts),
    pendingConfig: (node, vmid, opts) => to(node).pendingConfig(node, vmid, opts),
    nodeVms: (node, opts) => to(node).nodeVms(node, opts),
    clone: (node, vmid, params, opts) => to(node).clone(node, vmid, params, opts),
    resize: (node, vmid, disk, size, opts) => to(node).resize(node, vmid, disk, size, opts),
    start: (node, vmid, opts) => to(node).start(node, vmid, opts),
    stop: (node, vmid, opts) => to(node).stop(node, vmid, opts),
    destroy: (node, vmid, params, opts) => to(node).destroy(node, vmid, params, opts),
    agentInterfaces: (node, vmid, opts) => to(node).agentInterfaces(node, vmid, opts),
    storages: (node, opts) => to(node).storages(node, opts),
    upload: (node, storage, filename, source, opts) => to(node).upload(node, storage, filename, source, opts),
    storageContent: (node, storage, content, opts) => to(node).storageContent(node, storage, content, opts),
    deleteVolume: (node, storage, volid, opts) => to(node).deleteVolume(node, storage, volid, opts),
    // A task is known only to the node that runs it (its UPID's node), which is the node asked.
    taskStatus: (node, upid, opts) => to(node).taskStatus(node, upid, opts),
    taskLog: (node, upid, opts) => to(node).taskLog(node, upid, opts),
    nodeTasks: (node, query, opts) => to(node).nodeTasks(node, query, opts),
  };
}
