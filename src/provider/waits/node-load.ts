// How many QEMU VMs run on each node, as this process last saw them (SPEC
// 26): from the name look-up's `/cluster/resources?type=vm` and from the
// running board's own node listings. A `GET /nodes/{node}/qemu?full=1`
// makes the node ask the QMP of every running VM there (qemu-server's
// vmstatus: query-status and five more commands each, not only ours), so
// the running board lists a node only while that work stays within
// LISTING_WORK_FACTOR times what its VMs' own status/current reads cost
// (docs/decisions.md, "Calls per create").
import type { ClusterResource, NodeVmEntry } from '../../proxmox/api.js';

/** A listing may ask at most this many VMs' QMP per VM it saves a status/current for. */
export const LISTING_WORK_FACTOR = 2;

const NONE: ReadonlySet<number> = new Set();

export class NodeLoad {
  private running = new Map<string, ReadonlySet<number>>();
  /** Once a cluster listing was seen, a node it did not show runs none. */
  private clusterSeen = false;

  /** A cluster-wide VM listing: every node's running QEMU VMs (pvestatd's view, seconds old). */
  sawCluster(entries: readonly ClusterResource[]): void {
    const seen = new Map<string, Set<number>>();
    for (const e of entries) {
      if (e.type !== 'qemu' || e.status !== 'running' || e.node === undefined || e.vmid === undefined) continue;
      let vmids = seen.get(e.node);
      if (vmids === undefined) seen.set(e.node, (vmids = new Set()));
      vmids.add(e.vmid);
    }
    this.running = seen;
    this.clusterSeen = true;
  }

  /** One node's own VM listing (live). */
  sawNode(node: string, entries: readonly NodeVmEntry[]): void {
    this.running.set(node, new Set(entries.filter((e) => e.status === 'running').map((e) => e.vmid)));
  }

  /**
   * Whether one listing of the node is worth it for `due` VMs of ours due
   * now, `waiting` (their vmids) all ours waited on there: the VMs it
   * would ask (those seen running that are not ours, and ours) at most
   * LISTING_WORK_FACTOR per due VM. A node never seen: no.
   */
  listingPays(node: string, due: number, waiting: ReadonlySet<number>): boolean {
    const seen = this.running.get(node) ?? (this.clusterSeen ? NONE : undefined);
    if (seen === undefined || due <= 1) return false;
    let others = 0;
    for (const vmid of seen) if (!waiting.has(vmid)) others += 1;
    return others + waiting.size <= LISTING_WORK_FACTOR * due;
  }
}
