// proxmox.nodes[i].apiUrl (SPEC 28): a call for a node goes to that
// node's own pveproxy when it has one, so no upload passes through another
// node's pvedaemon (pve-storage Status.pm upload has no proxyto: the entry
// node runs its SSH steps, audit 4.4). A task is known only to the node
// that runs it (its UPID's node), which is the node asked, so its calls
// follow the same rule. A call with no node of its own goes to
// proxmox.url, or to the apiUrl of `opts.via`.
import type { CallOptions, ProxmoxApi } from './api.js';
import { dispatchApi } from './decorate.js';

export function routeByNode(main: ProxmoxApi, byNode: ReadonlyMap<string, ProxmoxApi>): ProxmoxApi {
  if (byNode.size === 0) return main;
  const to = (node: string): ProxmoxApi => byNode.get(node) ?? main;
  const via = (opts: CallOptions | undefined): ProxmoxApi => (opts?.via === undefined ? main : to(opts.via));
  return dispatchApi(({ ids, opts }, sendTo) => sendTo(ids.node === undefined ? via(opts) : to(ids.node), opts));
}
