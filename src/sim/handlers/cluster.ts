// /version, /nodes, /cluster/status and
// /cluster/resources (F8, F14, pvestatd's cycle of audit 7 and 3.3/3.4,
// statd.ts).
import { createHash } from 'node:crypto';
import type { Simulator } from '../simulator.js';
import { memoryBytes, type SimNode, type SimVm, type SimState, type StatdSample } from '../state.js';
import { refreshSample, type SampleClock } from '../statd.js';
import { rawJson } from '../http-io.js';
import type { Handler } from './context.js';

export const UPTIME = 1_209_700;
const BASE_MEM = 4 * 1024 ** 3;
export const DISK = { maxdisk: 100_861_726_720, disk: 12_884_901_888 };

export const version: Handler = () => ({ release: '9.2', version: '9.2.20', repoid: '49318c671b82f31e' });

export function usedMemory(state: SimState, node: string): number {
  let used = BASE_MEM;
  for (const vm of state.allVms()) if (vm.status === 'running' && vm.node === node) used += memoryBytes(vm);
  return used;
}

/** pve-manager API2Tools.pm extract_node_stats (38-79): what both /nodes and /cluster/resources say of a node. */
function nodeStats(state: SimState, node: SimNode, offline: boolean): Record<string, unknown> {
  if (offline) return { id: `node/${node.node}`, type: 'node', node: node.node, status: 'offline', level: '', maxcpu: node.maxcpu, maxmem: node.maxmem };
  return {
    id: `node/${node.node}`,
    type: 'node',
    node: node.node,
    status: 'online',
    level: '',
    maxcpu: node.maxcpu,
    cpu: 0.0418,
    maxmem: node.maxmem,
    mem: Math.min(usedMemory(state, node.node), node.maxmem),
    ...DISK,
    uptime: UPTIME,
  };
}

/**
 * Cluster.pm resources (626-629) adds the node's `cgroup-mode` from the
 * static-info pvestatd writes (pvestatd.pm 164; `host-arch` only when not
 * x86_64, 162). /nodes does not: Nodes.pm index (2977-2990).
 */
function resourcesNodeEntry(state: SimState, node: SimNode, offline: boolean): Record<string, unknown> {
  const entry = nodeStats(state, node, offline);
  return offline ? entry : { ...entry, 'cgroup-mode': 2 };
}

/**
 * The SHA-256 fingerprint of the node's certificate as pve-cluster
 * Cluster.pm get_node_fingerprint (831-840) gives it: 32 bytes, upper-case
 * hex, colon-separated. Made up per node: the simulator has no pve-ssl.pem.
 */
export function sslFingerprint(node: string): string {
  return (createHash('sha256').update(`pve-ssl.pem ${node}`).digest('hex').toUpperCase().match(/../g) ?? []).join(':');
}

/** pve-manager Nodes.pm index (2970-2993): each node's stats and its certificate's fingerprint; no `cgroup-mode`. */
export const nodes: Handler = ({ sim }) =>
  [...sim.state.nodes.values()].map((n) => ({ ...nodeStats(sim.state, n, sim.faults.nodeOffline(n.node)), ssl_fingerprint: sslFingerprint(n.node) }));

/**
 * pve-manager API2/Cluster.pm get_status: the cluster entry, then one per
 * member node, `local: 1` on the node whose pveproxy the request entered
 * (the method has no proxyto, so that node answers it; SPEC 28). A single
 * node is a standalone host: no cluster entry, `nodeid: 0`.
 */
export const clusterStatus: Handler = ({ sim, entryNode }) => {
  const names = [...sim.state.nodes.keys()];
  if (names.length === 1) return [{ type: 'node', id: `node/${entryNode}`, name: entryNode, ip: '192.0.2.1', local: 1, nodeid: 0, online: 1, level: '' }];
  const members = names.map((name, i) => {
    const online = sim.faults.nodeOffline(name) ? 0 : 1;
    // Every node has `level`: API2Tools extract_node_stats always answers a hash, so Cluster.pm sets `$d->{level} || ''` offline too.
    return { type: 'node', id: `node/${name}`, name, nodeid: i + 1, local: name === entryNode ? 1 : 0, online, ip: `192.0.2.${i + 1}`, level: '' };
  });
  const onlineCount = members.filter((m) => m.online === 1).length;
  return [{ type: 'cluster', id: 'cluster', nodes: names.length, version: names.length, name: sim.options.clusterName ?? 'pv1', quorate: onlineCount * 2 > names.length ? 1 : 0 }, ...members];
};

const UPTIME_MARK = '"uptime":0,';

/**
 * The entry without its uptime, which is the only part that changes with
 * time alone. `lock` and `tags` are read live from the config and appear
 * only when set (Cluster.pm resources 553-594): pmxcfs reports no empty
 * value (pve-cluster status.c _get_property_value_from_line 770-798, read
 * at 7091d92), so a VM without tags, or with an empty `tags:` line, has no
 * `tags`, and a clone's temporary config (lock only) none until its new
 * config is written. Everything else comes from the RRD sample (statd.ts).
 */
function vmEntryParts(vm: SimVm, rrd: StatdSample | undefined): [string, string] {
  const entry: Record<string, unknown> = { id: `qemu/${vm.vmid}`, type: 'qemu', vmid: vm.vmid, node: vm.node };
  if (typeof vm.config.lock === 'string') entry.lock = vm.config.lock;
  if (typeof vm.config.tags === 'string' && vm.config.tags !== '') entry.tags = vm.config.tags;
  if (rrd === undefined) return [JSON.stringify({ ...entry, status: 'unknown' }), ''];
  const running = rrd.status === 'running';
  const mem = running ? Math.floor(rrd.maxmem * 0.3) : 0;
  Object.assign(entry, {
    name: rrd.name,
    status: rrd.status,
    template: rrd.template,
    maxcpu: rrd.maxcpu,
    maxmem: rrd.maxmem,
    mem,
    maxdisk: rrd.maxdisk,
    disk: 0,
    cpu: running ? 0.0213 : 0,
    uptime: 0,
    netin: 0,
    netout: 0,
    diskread: 0,
    diskwrite: 0,
    // A 9.x pvestatd writes pve-vm-9.0 samples (pvestatd.pm 397), and extract_vm_stats adds their memhost (API2Tools.pm 113-115).
    memhost: mem,
  });
  const json = JSON.stringify(entry);
  const at = json.indexOf(UPTIME_MARK) + '"uptime":'.length;
  return [json.slice(0, at), json.slice(at + 1)];
}

/**
 * Serialized once per change of the VM or its sample, so 10,000 entries
 * cost a join, not a rebuild. A VM with no sample of its own shows what
 * pmxcfs still holds at its VMID (a destroyed VM's, audit 3.4); that entry
 * is not cached, as the lingering sample expires on its own.
 */
function vmEntryJson(sim: Simulator, vm: SimVm, clock: SampleClock, nodeOffline: boolean): string {
  refreshSample(vm, clock);
  const rrd = vm.rrd ?? (clock.cycles ? sim.lingering.at(vm.vmid) : undefined);
  const [before, after] = vm.rrd === undefined ? vmEntryParts(vm, rrd) : (vm.cachedEntry ??= vmEntryParts(vm, rrd));
  // A node that is down reports nothing: its guests stay listed with status unknown.
  if (nodeOffline) return JSON.stringify({ ...(JSON.parse(after === '' ? before : `${before}0${after}`) as object), status: 'unknown' });
  if (after === '') return before;
  const startedAt = rrd?.startedAt;
  const uptime = startedAt !== undefined ? Math.max(0, Math.floor((clock.sampleAt - startedAt) / 1000)) : 0;
  return `${before}${uptime}${after}`;
}

function storageEntries(state: SimState): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const node of state.nodes.values()) {
    for (const s of node.storages.values()) {
      // Cluster.pm resources: one entry per node that storage_check_enabled lets use it.
      if (state.storageRefusal(node.node, s.storage) !== undefined) continue;
      out.push({ id: `storage/${node.node}/${s.storage}`, type: 'storage', storage: s.storage, node: node.node, status: 'available', content: s.content.join(','), plugintype: s.type, shared: s.shared ? 1 : 0 });
    }
  }
  return out;
}

export const clusterResources: Handler = ({ sim, params }) => {
  const type = params.type;
  const clock = sim.statdClock();
  const parts: string[] = [];
  const offline = (node: string): boolean => sim.faults.nodeOffline(node);
  sim.lingering.expire(sim.now(), sim.rrdKeepMs);
  if (type === undefined || type === 'vm') for (const vm of sim.state.allVms()) parts.push(vmEntryJson(sim, vm, clock, offline(vm.node)));
  if (type === undefined || type === 'node') for (const node of sim.state.nodes.values()) parts.push(JSON.stringify(resourcesNodeEntry(sim.state, node, offline(node.node))));
  if (type === undefined || type === 'storage') for (const entry of storageEntries(sim.state)) parts.push(JSON.stringify(entry));
  return rawJson(`[${parts.join(',')}]`);
};
