// The pvedaemon slots as a decorator of the seam (SPEC 28): a call the
// route table marks protected waits for a slot on the node whose
// pvedaemon runs it, and frees it when Proxmox answers. A call that ends
// without Proxmox's answer (aborted, timed out, dropped) may still be
// running in pvedaemon, so its slot stays taken for the call's worst case
// (daemon-worst-cases.ts) after it was sent; after a 596 (pveproxy's own
// 30 s timeout, the call may still be queued at pvedaemon) for its worst
// case from then. The rest go through untouched. A protected call without
// proxyto (an upload) counts against the node its address enters, asked
// once per address (entry-nodes.ts); one with no node at all (the cluster
// status) against every node, as it may enter any of them.
import type { CallOptions, ClusterStatusEntry, ProxmoxApi, Upid } from './api.js';
import { isApiError } from './api-error.js';
import { TransportError } from './classify.js';
import { decorateApi } from './decorate.js';
import type { Run } from './decorate.js';
import { DAEMON_WORST_CASES, isProtectedRoute } from './daemon-worst-cases.js';
import type { DaemonWorstCase, ProtectedRouteName } from './daemon-worst-cases.js';
import type { DaemonSlot, DaemonSlots } from './daemon-slots.js';
import { entryNodes } from './entry-nodes.js';
import type { EntryNodes } from './entry-nodes.js';
import type { Logger } from '../log.js';

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

/** Runs a protected call holding one slot on each of `nodes`, and ends each slot as the call ended. */
type Slotted = (name: ProtectedRouteName, nodes: readonly string[], opts: CallOptions | undefined, run: Run) => Promise<unknown>;

/** Takes a slot on each node in order (the same order in every process, so two never wait on each other); frees those taken if a take fails. */
async function takeAll(slots: DaemonSlots, nodes: readonly string[], name: ProtectedRouteName, worstCaseMs: number, signal: AbortSignal | undefined): Promise<DaemonSlot[]> {
  const taken: DaemonSlot[] = [];
  try {
    for (const node of nodes) taken.push(await slots.take(node, name, worstCaseMs, signal));
  } catch (err) {
    for (const slot of taken) slot.answered();
    throw err;
  }
  return taken;
}

/** What a call that failed with `err` does to its slots: free them on Proxmox's answer, keep them for the worst case when it may still run. */
function endFailed(err: unknown, worst: DaemonWorstCase): (slot: DaemonSlot) => void {
  if (neverConnected(err)) return (slot) => slot.answered();
  if (!isApiError(err)) return (slot) => slot.abandoned(worst.from);
  if (err.status === PROXY_TIMEOUT_STATUS) return (slot) => slot.abandoned('givenUp');
  return (slot) => slot.answered();
}

function holdingSlots(slots: DaemonSlots, worstCaseScale: number): Slotted {
  return async (name, nodes, opts, run) => {
    const worst = DAEMON_WORST_CASES[name];
    const held = await takeAll(slots, nodes, name, worst.ms * worstCaseScale, opts?.signal);
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
      each(endFailed(err, worst));
      throw err;
    }
  };
}

/**
 * The entry node of each address, from the status call. It runs on the
 * node it is asked to find out. Through a node's own apiUrl that is the
 * node; through proxmox.url, shared by several, any of the nodes, so it
 * holds a slot on each. Its slot waits and the call are bounded: a node
 * whose slots are stuck behind worst cases must not hold every first
 * upload (the upload then counts against its target, and the status is
 * asked again later). Once per address per process.
 */
function entryNodesAsked(api: ProxmoxApi, slotted: Slotted, entry: EntryNodeOptions, everyNode: readonly string[]): EntryNodes {
  const statusNodes = (node: string): readonly string[] => {
    const address = entry.addressOf(node);
    const sharing = everyNode.filter((n) => entry.addressOf(n) === address);
    return sharing.length === 1 && sharing[0] === node ? [node] : everyNode;
  };
  const askStatus = (node: string): Promise<unknown> =>
    slotted('clusterStatus', statusNodes(node), { signal: AbortSignal.timeout(entry.statusWaitMs ?? STATUS_WAIT_MS) }, (o) => api.clusterStatus({ ...o, via: node }));
  return entryNodes({
    addressOf: entry.addressOf,
    askStatus: (node) => askStatus(node) as Promise<ClusterStatusEntry[]>,
    ...(entry.logger === undefined ? {} : { logger: entry.logger }),
    ...(entry.statusRetryMs === undefined ? {} : { retryMs: entry.statusRetryMs }),
    ...(entry.now === undefined ? {} : { now: entry.now }),
  });
}

/**
 * `worstCaseScale` multiplies every worst case (proxmox.daemonSlotWorstCaseScale):
 * 1 against a real host, the simulator's sim.timeScale against it.
 */
export function daemonSlotApi(api: ProxmoxApi, slots: DaemonSlots, worstCaseScale: number, entry: EntryNodeOptions): ProxmoxApi {
  const slotted = holdingSlots(slots, worstCaseScale);
  const everyNode = [...new Set(entry.nodes)].sort();
  const entries = entryNodesAsked(api, slotted, entry, everyNode);
  return decorateApi(api, async ({ name, route, ids, opts }, run) => {
    if (!isProtectedRoute(name)) return run(opts);
    const node = ids.node;
    // No node of its own (the cluster status): it runs on the node its address enters, any of them.
    if (node === undefined) return slotted(name, everyNode, opts, run);
    if (route.proxyto) return slotted(name, [node], opts, run);
    // Without proxyto (an upload) the call runs on the node its address
    // enters; while no status answer or UPID has named it, on its target.
    const answer = await slotted(name, [(await entries.of(node, opts?.signal)) ?? node], opts, run);
    const entered = typeof answer === 'string' ? upidNode(answer) : undefined;
    if (entered !== undefined) entries.learned(node, entered);
    return answer;
  });
}
