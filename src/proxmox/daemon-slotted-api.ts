// The pvedaemon slots as a decorator of the seam (SPEC 28): a call the
// route table marks protected waits for a slot on the node whose
// pvedaemon runs it, and frees it when Proxmox answers. A call that ends
// without Proxmox's answer (aborted, timed out, dropped) may still be
// running in pvedaemon, so its slot stays taken for the call's worst case
// (daemon-worst-cases.ts) after it was sent; after a 596 (pveproxy's own
// 30 s timeout, the call may still be queued at pvedaemon) for its worst
// case from then. The rest go through untouched.
import type { CallOptions, ProxmoxApi, Upid } from './api.js';
import { isApiError } from './api-error.js';
import { TransportError } from './classify.js';
import { DAEMON_WORST_CASES, isProtectedRoute } from './daemon-worst-cases.js';
import type { DaemonSlots } from './daemon-slots.js';
import { ROUTES } from './routes.js';
import type { RouteName } from './routes.js';

/** pveproxy answers 596 when its proxied call had no answer in 30 s; pvedaemon may still be running or about to run it. */
const PROXY_TIMEOUT_STATUS = 596;

/** Connect-phase failures: the request never reached pveproxy, so no pvedaemon runs it. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function neverConnected(err: unknown): boolean {
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof TransportError && NEVER_CONNECTED.has(cause.code);
}

/** The node of a UPID (`UPID:<node>:...`, F16); undefined when it is not one. */
function upidNode(upid: Upid): string | undefined {
  const [kind, node] = upid.split(':');
  return kind === 'UPID' && node !== undefined && node !== '' ? node : undefined;
}

/**
 * `worstCaseScale` multiplies every worst case (proxmox.daemonSlotWorstCaseScale):
 * 1 against a real host, the simulator's sim.timeScale against it.
 */
export function daemonSlotApi(api: ProxmoxApi, slots: DaemonSlots, worstCaseScale: number): ProxmoxApi {
  // An upload has no proxyto: it runs in the pvedaemon of the node its
  // request entered, whose name its UPID carries (its task runs there).
  // Learned per upload target, so a node with its own API address learns
  // its own; before the first answer an upload counts against its target.
  const entryNodes = new Map<string, string>();

  async function slotted<T>(route: RouteName, node: string, opts: CallOptions | undefined, run: (opts: CallOptions | undefined) => Promise<T>): Promise<T> {
    if (!isProtectedRoute(route)) return run(opts);
    const worst = DAEMON_WORST_CASES[route];
    const daemonNode = ROUTES[route].proxyto ? node : (entryNodes.get(node) ?? node);
    const slot = await slots.take(daemonNode, route, worst.ms * worstCaseScale, opts?.signal);
    const sending: CallOptions = {
      ...opts,
      onSend: () => {
        slot.sent();
        opts?.onSend?.();
      },
    };
    try {
      const answer = await run(sending);
      slot.answered();
      return answer;
    } catch (err) {
      if (neverConnected(err)) slot.answered();
      else if (!isApiError(err)) slot.abandoned(worst.from);
      else if (err.status === PROXY_TIMEOUT_STATUS) slot.abandoned('givenUp');
      else slot.answered();
      throw err;
    }
  }

  return {
    version: (opts) => api.version(opts),
    nodes: (opts) => api.nodes(opts),
    nodeStatus: (node, opts) => api.nodeStatus(node, opts),
    clusterResources: (type, opts) => api.clusterResources(type, opts),
    getConfig: (node, vmid, opts) => slotted('getConfig', node, opts, (o) => api.getConfig(node, vmid, o)),
    putConfig: (node, vmid, params, opts) => slotted('putConfig', node, opts, (o) => api.putConfig(node, vmid, params, o)),
    statusCurrent: (node, vmid, opts) => slotted('statusCurrent', node, opts, (o) => api.statusCurrent(node, vmid, o)),
    pendingConfig: (node, vmid, opts) => slotted('pendingConfig', node, opts, (o) => api.pendingConfig(node, vmid, o)),
    nodeVms: (node, opts) => slotted('nodeVms', node, opts, (o) => api.nodeVms(node, o)),
    clone: (node, vmid, params, opts) => slotted('clone', node, opts, (o) => api.clone(node, vmid, params, o)),
    resize: (node, vmid, disk, size, opts) => slotted('resize', node, opts, (o) => api.resize(node, vmid, disk, size, o)),
    start: (node, vmid, opts) => slotted('start', node, opts, (o) => api.start(node, vmid, o)),
    stop: (node, vmid, opts) => slotted('stop', node, opts, (o) => api.stop(node, vmid, o)),
    destroy: (node, vmid, params, opts) => slotted('destroy', node, opts, (o) => api.destroy(node, vmid, params, o)),
    agentInterfaces: (node, vmid, opts) => slotted('agentInterfaces', node, opts, (o) => api.agentInterfaces(node, vmid, o)),
    storages: (node, opts) => slotted('storages', node, opts, (o) => api.storages(node, o)),
    upload: async (node, storage, filename, source, opts) => {
      const upid = await slotted('upload', node, opts, (o) => api.upload(node, storage, filename, source, o));
      const entry = upidNode(upid);
      if (entry !== undefined) entryNodes.set(node, entry);
      return upid;
    },
    storageContent: (node, storage, content, opts) => slotted('storageContent', node, opts, (o) => api.storageContent(node, storage, content, o)),
    deleteVolume: (node, storage, volid, opts) => slotted('deleteVolume', node, opts, (o) => api.deleteVolume(node, storage, volid, o)),
    taskStatus: (node, upid, opts) => slotted('taskStatus', node, opts, (o) => api.taskStatus(node, upid, o)),
    taskLog: (node, upid, opts) => slotted('taskLog', node, opts, (o) => api.taskLog(node, upid, o)),
    nodeTasks: (node, query, opts) => slotted('nodeTasks', node, opts, (o) => api.nodeTasks(node, query, o)),
  };
}
