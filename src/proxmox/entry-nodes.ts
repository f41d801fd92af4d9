// Which node each Proxmox API address enters (SPEC 28). An upload has no
// proxyto (pve-storage Status.pm upload): it runs in the pvedaemon of the
// node whose pveproxy the request entered, so the daemon slots must know
// that node before the first upload, not after its answer. Learned per
// address (proxmox.url, or a node's own apiUrl), once per process, from
// `GET /cluster/status`, whose entry `local: 1` is the answering node
// (pve-manager API2/Cluster.pm get_status). That call needs Sys.Audit on
// `/`; when it fails, an upload's UPID (its task runs on the entry node,
// F16) teaches the same thing one upload later.
import type { ClusterStatusEntry } from './api.js';
import type { Logger } from '../log.js';

export interface EntryNodes {
  /**
   * The node a call for `node` enters (through that node's address);
   * undefined while no status answer or UPID has said. Asks
   * `/cluster/status` through that address the first time, one call per
   * address at a time; `signal` ends this caller's wait, not the call.
   */
  of(node: string, signal?: AbortSignal): Promise<string | undefined>;
  /** An upload for `node` answered a UPID of `entry`: its address enters `entry`. */
  learned(node: string, entry: string): void;
}

export interface EntryNodesOptions {
  /** The address a call for `node` goes to: its proxmox.nodes[i].apiUrl, else proxmox.url (node-routed-api.ts). */
  addressOf: (node: string) => string;
  /** `GET /cluster/status` through the address of `node` (CallOptions.via). */
  askStatus: (node: string) => Promise<ClusterStatusEntry[]>;
  logger?: Logger;
  /** How long after a failed status call an upload through that address asks again (default STATUS_RETRY_MS). */
  retryMs?: number;
  /** The clock (ms); Date.now by default. */
  now?: () => number;
}

/**
 * A failed status call is asked again after this long, not cached for the
 * process: a network error or a pveproxy restart while the worker starts
 * would otherwise leave every later cold burst counted against its
 * targets (the UPID fallback only helps once an upload got through). A
 * refusal (no Sys.Audit) costs one protected call a minute at most, and
 * only until an upload's UPID names the node.
 */
export const STATUS_RETRY_MS = 60_000;

/** The answering node of a status answer: its one `type: 'node'` entry with `local` set. */
export function localNode(entries: unknown): string | undefined {
  if (!Array.isArray(entries)) return undefined;
  const local = (entries as Partial<ClusterStatusEntry>[]).filter((e) => e.type === 'node' && Number(e.local) === 1 && typeof e.name === 'string' && e.name !== '');
  return local.length === 1 ? local[0]?.name : undefined;
}

function untilAborted(signal: AbortSignal | undefined): Promise<never> | undefined {
  if (signal === undefined) return undefined;
  return new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

export function entryNodes(options: EntryNodesOptions): EntryNodes {
  const known = new Map<string, string>();
  const asked = new Map<string, Promise<void>>();
  /** When each address's last status call failed: asked again STATUS_RETRY_MS after. */
  const failedAt = new Map<string, number>();
  /** Addresses whose failure was logged at warn: a failure again is logged at debug. */
  const warned = new Set<string>();
  const now = options.now ?? Date.now;
  const retryMs = options.retryMs ?? STATUS_RETRY_MS;

  function warnOnce(address: string, fields: Record<string, unknown>, msg: string): void {
    if (warned.has(address)) options.logger?.debug(fields, msg);
    else options.logger?.warn(fields, msg);
    warned.add(address);
  }

  async function ask(node: string, address: string): Promise<void> {
    let answer: unknown;
    try {
      answer = await options.askStatus(node);
    } catch (err) {
      failedAt.set(address, now());
      warnOnce(
        address,
        { err, node },
        'GET /cluster/status failed (refused, unanswered, or its pvedaemon slots not free within 2 s): uploads through this Proxmox address count against their target node\'s pvedaemon slots until it answers (asked again a minute later) or one upload\'s UPID names the node it entered; if it was refused, give the token Sys.Audit on / (docs/operations.md)',
      );
      return;
    }
    const local = localNode(answer);
    if (local === undefined) {
      failedAt.set(address, now());
      warnOnce(address, { node }, 'GET /cluster/status answered no single entry with local: 1; uploads through this Proxmox address count against their target node until one upload\'s UPID names the node it entered');
      return;
    }
    if (!known.has(address)) known.set(address, local);
  }

  return {
    async of(node, signal) {
      const address = options.addressOf(node);
      const entry = known.get(address);
      if (entry !== undefined) return entry;
      let asking = asked.get(address);
      const failed = failedAt.get(address);
      if (asking === undefined || (failed !== undefined && now() - failed >= retryMs)) {
        failedAt.delete(address);
        asking = ask(node, address);
        asked.set(address, asking);
      }
      const aborted = untilAborted(signal);
      await (aborted === undefined ? asking : Promise.race([asking, aborted]));
      return known.get(address);
    },
    learned(node, entry) {
      known.set(options.addressOf(node), entry);
    },
  };
}
