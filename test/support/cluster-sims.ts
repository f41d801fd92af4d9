// Looking into several simulated clusters from a test (SPEC 32): each
// simulator's VMs of ours, a VM destroyed behind the service's back, a VM
// planted as a copy of another, and each cluster's state in the last
// health result, as placement and the views read it.
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { clustersOf } from '../../src/config/clusters.js';
import type { Config } from '../../src/config/types.js';
import { parseMark } from '../../src/provider/mark.js';
import { clusterHealth, type ClusterHealth } from '../../src/queue/cluster-health.js';
import { readLastHealth } from '../../src/queue/health-store.js';
import type { RunningSimulator } from '../../src/sim/index.js';

export interface SimVm {
  vmid: number;
  node: string;
  status: string;
  cloning: boolean;
  config: Record<string, string | number | undefined>;
}

export async function simVms(sim: RunningSimulator): Promise<SimVm[]> {
  const res = await fetch(`${sim.url}/_sim/state`);
  if (!res.ok) throw new Error(`GET /_sim/state: ${res.status}`);
  return ((await res.json()) as { vms: SimVm[] }).vms;
}

/** The VMs carrying our mark, by name. */
export async function oursByName(sim: RunningSimulator): Promise<Map<string, SimVm[]>> {
  const byName = new Map<string, SimVm[]>();
  for (const vm of await simVms(sim)) {
    if (parseMark(String(vm.config.description ?? '')) === undefined) continue;
    const name = String(vm.config.name ?? '');
    byName.set(name, [...(byName.get(name) ?? []), vm]);
  }
  return byName;
}

/** The mark's uid of a VM. */
export function uidOf(vm: SimVm | undefined): string | undefined {
  return parseMark(String(vm?.config.description ?? ''))?.uid;
}

async function proxmoxCall(sim: RunningSimulator, tokenFile: string, method: 'GET' | 'POST' | 'DELETE', path: string): Promise<Response> {
  const token = readFileSync(tokenFile, 'utf8').trim();
  return fetch(`${sim.url}/api2/json${path}`, { method, headers: { Authorization: `PVEAPIToken=${token}` } });
}

/** Destroys a VM through the Proxmox API, as someone else would: stopped first (planted so), then DELETE; resolves once it is gone. */
export async function destroyBehindTheServicesBack(sim: RunningSimulator, tokenFile: string, vm: SimVm): Promise<void> {
  const stopped = await fetch(`${sim.url}/_sim/vms`, { method: 'POST', body: JSON.stringify({ node: vm.node, vmid: vm.vmid, status: 'stopped' }) });
  if (!stopped.ok) throw new Error(`stopping VM ${vm.vmid}: ${stopped.status} ${await stopped.text()}`);
  const answer = await proxmoxCall(sim, tokenFile, 'DELETE', `/nodes/${vm.node}/qemu/${vm.vmid}`);
  if (!answer.ok) throw new Error(`DELETE VM ${vm.vmid}: ${answer.status} ${answer.statusText}`);
  for (;;) {
    if (!(await simVms(sim)).some((v) => v.vmid === vm.vmid)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Plants on `sim` a stopped copy of `vm`'s name, description (the mark,
 * with its uid replaced by `uid`) and tags at `vmid`, without its disks:
 * a VM of ours as the service's provider wrote it, whatever the mark and
 * tags say of its cluster.
 */
export async function plantCopy(sim: RunningSimulator, vm: SimVm, at: { vmid: number; node: string; uid: string }): Promise<void> {
  const description = String(vm.config.description ?? '').replace(/^uid: .*$/m, `uid: ${at.uid}`);
  const config = { name: vm.config.name, description, ...(vm.config.tags === undefined ? {} : { tags: vm.config.tags }), memory: 512 };
  const res = await fetch(`${sim.url}/_sim/vms`, { method: 'POST', body: JSON.stringify({ node: at.node, vmid: at.vmid, config, status: 'stopped' }) });
  if (!res.ok) throw new Error(`planting a copy of ${String(vm.config.name)} at ${at.vmid}: ${res.status} ${await res.text()}`);
}

/** Each configured cluster's state in the last health result written after `after` (ms), or undefined while there is none. */
export async function clustersInHealth(redis: Redis, keyPrefix: string, config: Config, after = 0): Promise<ClusterHealth[] | undefined> {
  const last = await readLastHealth(redis, keyPrefix);
  if (last === undefined || Date.parse(last.at) <= after) return undefined;
  return clusterHealth(last, clustersOf(config));
}
