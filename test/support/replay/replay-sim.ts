// The simulator a replay runs against (SPEC 33), set up with the recorded
// host's inventory: its nodes (an offline one as the offlineNodes fault),
// its storages (the `storages` option), its bridges, its templates planted
// at their VMIDs with their configs; no population (vms 0). The daemon
// model is off: a replay checks answers, not load.
import { randomUUID } from 'node:crypto';
import { startSimulator, type RunningSimulator } from '../../../src/sim/index.js';
import type { RecordingIndex, SimSetupCall } from '../../../src/verify/record/recording-index.js';

export interface ReplaySim {
  running: RunningSimulator;
  /** `PVEAPIToken=...` the simulator accepts. */
  authorization: string;
  close(): Promise<void>;
}

/** The token user the recording's UPIDs name (`root@pam!provisioner`), so the replayed UPIDs and task owners name it too. */
export function recordedTokenId(bodies: string[]): string {
  for (const body of bodies) {
    const user = /UPID:[^:"]+:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:[^:"]*:[^:"]*:([^:"!]+![^:"]+):/i.exec(body)?.[1];
    if (user !== undefined) return user;
  }
  return 'root@pam!provisioner';
}

export async function simControl(sim: RunningSimulator, call: SimSetupCall): Promise<void> {
  const response = await fetch(`${sim.url}${call.path}`, {
    method: call.method,
    headers: { 'content-type': 'application/json' },
    ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
  });
  if (!response.ok) throw new Error(`${call.method} ${call.path}: ${response.status} ${await response.text()}`);
}

export async function startReplaySim(index: RecordingIndex, tokenId: string): Promise<ReplaySim> {
  const { inventory } = index;
  const token = `${tokenId}=${randomUUID()}`;
  const running = await startSimulator({
    tokens: [token],
    port: 0,
    nodes: inventory.nodes.map((n) => n.node),
    vms: 0,
    timeScale: index.sim?.timeScale ?? 0.02,
    ...(index.sim?.cloneSeconds === undefined ? {} : { cloneSeconds: index.sim.cloneSeconds }),
    ...(index.sim?.taskSeconds === undefined ? {} : { taskSeconds: index.sim.taskSeconds }),
    ...(index.sim?.agentSeconds === undefined ? {} : { agentSeconds: index.sim.agentSeconds }),
    statdSeconds: index.sim?.statdSeconds ?? 0,
    proxyWorkers: 0,
    daemonWorkers: 0,
    storages: inventory.storages.map((s) => ({
      node: s.node,
      storage: s.storage,
      type: s.type ?? 'dir',
      content: s.content ?? '',
      shared: s.shared === 1,
      enabled: s.enabled !== 0,
      active: s.active !== 0,
    })),
    bridges: inventory.bridges,
  });
  try {
    // The populated templates of a fresh simulator are not the host's: vms 0 still plants them (population.ts).
    for (const vm of [...running.sim.state.allVms()]) running.sim.state.removeVm(vm);
    for (const t of inventory.templates) {
      const config = Object.fromEntries(Object.entries(t.config).filter(([key, value]) => key !== 'digest' && value !== undefined));
      await simControl(running, { method: 'POST', path: '/_sim/vms', body: { node: t.node, vmid: t.vmid, config } });
    }
    const offline = inventory.nodes.filter((n) => n.status === 'offline').map((n) => n.node);
    if (offline.length > 0) await simControl(running, { method: 'POST', path: '/_sim/faults', body: { offlineNodes: offline } });
  } catch (err) {
    await running.close();
    throw err;
  }
  return { running, authorization: `PVEAPIToken=${token}`, close: () => running.close() };
}
