// The pvedaemon slots as a decorator of the seam (SPEC 28): a call the
// route table marks protected waits for a slot on the node whose
// pvedaemon runs it, and frees it when Proxmox answers. A call that ends
// without Proxmox's answer (aborted, timed out, dropped) may still be
// running in pvedaemon, so its slot stays taken for the call's worst case
// (daemon-worst-cases.ts) after it was sent; after a 596 (pveproxy's own
// 30 s timeout, the call may still be queued at pvedaemon) for its worst
// case from then. The rest go through untouched. An upload counts against
// the node its address enters, asked once per address (entry-nodes.ts).
import type { CallOptions, ProxmoxApi, Upid } from './api.js';
import { isApiError } from './api-error.js';
import { TransportError } from './classify.js';
import { DAEMON_WORST_CASES, isProtectedRoute } from './daemon-worst-cases.js';
import type { ProtectedRouteName } from './daemon-worst-cases.js';
import type { DaemonSlot, DaemonSlots } from './daemon-slots.js';
import { entryNodes } from './entry-nodes.js';
import type { Logger } from '../log.js';
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

/** How the decorator learns which node an upload enters (entry-nodes.ts). */
export interface EntryNodeOptions {
  /** The address a call for `node` goes to: its proxmox.nodes[i].apiUrl, else proxmox.url. */
  addressOf: (node: string) => string;
  /**
   * The nodes the service uses (proxmox.nodes): the status call, itself
   * protected, runs on a node not known yet, so it holds a slot on each.
   */
  nodes: readonly string[];
  logger?: Logger;
  /** Longest the status call waits for its slots and its answer (STATUS_WAIT_MS by default); then it counts as failed. */
  statusWaitMs?: number;
  /** After a failed status call, asked again this much later (entry-nodes.ts STATUS_RETRY_MS by default). */
  statusRetryMs?: number;
  /** The clock (ms) for that retry; Date.now by default. */
  now?: () => number;
}

/** The status call's bound on its slot waits and its answer (ms): it costs milliseconds when a slot is free. */
export const STATUS_WAIT_MS = 2_000;

/**
 * `worstCaseScale` multiplies every worst case (proxmox.daemonSlotWorstCaseScale):
 * 1 against a real host, the simulator's sim.timeScale against it.
 */
export function daemonSlotApi(api: ProxmoxApi, slots: DaemonSlots, worstCaseScale: number, entry: EntryNodeOptions): ProxmoxApi {
  /** Takes a slot on each node in order (the same order in every process, so two never wait on each other); frees those taken if a take fails. */
  async function takeAll(nodes: readonly string[], route: ProtectedRouteName, signal: AbortSignal | undefined): Promise<DaemonSlot[]> {
    const worst = DAEMON_WORST_CASES[route];
    const taken: DaemonSlot[] = [];
    try {
      for (const node of nodes) taken.push(await slots.take(node, route, worst.ms * worstCaseScale, signal));
    } catch (err) {
      for (const slot of taken) slot.answered();
      throw err;
    }
    return taken;
  }

  async function slottedOn<T>(route: ProtectedRouteName, nodes: readonly string[], opts: CallOptions | undefined, run: (opts: CallOptions | undefined) => Promise<T>): Promise<T> {
    const worst = DAEMON_WORST_CASES[route];
    const held = await takeAll(nodes, route, opts?.signal);
    const each = (end: (slot: DaemonSlot) => void): void => held.forEach(end);
    const sending: CallOptions = {
      ...opts,
      onSend: () => {
        each((slot) => slot.sent());
        opts?.onSend?.();
      },
    };
    try {
      const answer = await run(sending);
      each((slot) => slot.answered());
      return answer;
    } catch (err) {
      if (neverConnected(err)) each((slot) => slot.answered());
      else if (!isApiError(err)) each((slot) => slot.abandoned(worst.from));
      else if (err.status === PROXY_TIMEOUT_STATUS) each((slot) => slot.abandoned('givenUp'));
      else each((slot) => slot.answered());
      throw err;
    }
  }

  // The status call runs on the node it is asked to find out. Through a
  // node's own apiUrl that is the node; through proxmox.url, shared by
  // several, any of the nodes, so it holds a slot on each. Its slot waits
  // and the call are bounded: a node whose slots are stuck behind worst
  // cases must not hold every first upload (the upload then counts
  // against its target, and the status is asked again later).
  // Once per address per process.
  const everyNode = [...new Set(entry.nodes)].sort();
  const statusNodes = (node: string): string[] => {
    const address = entry.addressOf(node);
    const sharing = everyNode.filter((n) => entry.addressOf(n) === address);
    return sharing.length === 1 && sharing[0] === node ? [node] : everyNode;
  };
  const entries = entryNodes({
    addressOf: entry.addressOf,
    askStatus: (node) =>
      slottedOn('clusterStatus', statusNodes(node), { signal: AbortSignal.timeout(entry.statusWaitMs ?? STATUS_WAIT_MS) }, (o) => api.clusterStatus({ ...o, via: node })),
    ...(entry.logger === undefined ? {} : { logger: entry.logger }),
    ...(entry.statusRetryMs === undefined ? {} : { retryMs: entry.statusRetryMs }),
    ...(entry.now === undefined ? {} : { now: entry.now }),
  });

  async function slotted<T>(route: RouteName, node: string, opts: CallOptions | undefined, run: (opts: CallOptions | undefined) => Promise<T>): Promise<T> {
    if (!isProtectedRoute(route)) return run(opts);
    // Without proxyto (an upload) the call runs on the node its address
    // enters; while no status answer or UPID has named it, on its target.
    const daemonNode = ROUTES[route].proxyto ? node : ((await entries.of(node, opts?.signal)) ?? node);
    return slottedOn(route, [daemonNode], opts, run);
  }

  return {
    version: (opts) => api.version(opts),
    nodes: (opts) => api.nodes(opts),
    nodeStatus: (node, opts) => api.nodeStatus(node, opts),
    clusterResources: (type, opts) => api.clusterResources(type, opts),
    clusterStatus: (opts) => slottedOn('clusterStatus', everyNode, opts, (o) => api.clusterStatus(o)),
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
      const entered = upidNode(upid);
      if (entered !== undefined) entries.learned(node, entered);
      return upid;
    },
    storageContent: (node, storage, content, opts) => slotted('storageContent', node, opts, (o) => api.storageContent(node, storage, content, o)),
    deleteVolume: (node, storage, volid, opts) => slotted('deleteVolume', node, opts, (o) => api.deleteVolume(node, storage, volid, o)),
    taskStatus: (node, upid, opts) => slotted('taskStatus', node, opts, (o) => api.taskStatus(node, upid, o)),
    taskLog: (node, upid, opts) => slotted('taskLog', node, opts, (o) => api.taskLog(node, upid, o)),
    nodeTasks: (node, query, opts) => slotted('nodeTasks', node, opts, (o) => api.nodeTasks(node, query, o)),
  };
}
