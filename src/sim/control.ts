// The /_sim/ endpoints (SPEC 8), never on a real host: look inside the
// simulated cluster, inject faults, reset, plant or change VMs, and
// disable or restrict storages, and take the cluster offline for a while.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { faultSetProblems, type FaultSet } from './faults.js';
import { readText, sendJson } from './http-io.js';
import { answerOffline, offlineProblems } from './offline-control.js';
import type { Simulator } from './simulator.js';
import { changeStorage, storageCfgView, storageChangeProblems, type StorageChange } from './storage-control.js';
import { freshVmState, touched, vmDisks, type GuestInterface, type SimVm, type VmConfig } from './state.js';

function vmView(vm: SimVm): Record<string, unknown> {
  return {
    vmid: vm.vmid,
    node: vm.node,
    status: vm.status,
    qmpstatus: vm.status === 'running' ? (vm.paused ? 'paused' : 'running') : 'stopped',
    cloning: vm.cloning,
    origin: vm.origin,
    config: vm.config,
    ...(vm.pending !== undefined && Object.keys(vm.pending).length > 0 ? { pending: vm.pending } : {}),
  };
}

/** Every VM with its config, every volume by node and storage. */
export function stateView(sim: Simulator): Record<string, unknown> {
  const vms = [...sim.state.allVms()];
  const nodes = [...sim.state.nodes.values()].map((node) => ({
    node: node.node,
    storages: [...node.storages.values()].map((s) => ({
      storage: s.storage,
      content: s.content.join(','),
      volumes: [
        ...[...s.volumes.values()].map((v) => ({ volid: v.volid, content: v.content, size: v.size, ctime: v.ctime, sha256: v.sha256 })),
        ...vms
          .filter((vm) => vm.node === node.node)
          .flatMap((vm) => vmDisks(vm).filter(([, volid]) => volid.startsWith(`${s.storage}:`)).map(([, volid, size]) => ({ volid, content: 'images', size, vmid: vm.vmid }))),
      ],
    })),
  }));
  return { nodes, vms: vms.map(vmView) };
}

interface VmPlant {
  node: string;
  vmid: number;
  config?: VmConfig;
  status?: 'running' | 'stopped';
  paused?: boolean;
  /** A lock to set, or null to clear it. */
  lock?: string | null;
  /** For a running VM: how long ago it started (the agent answers after sim.agentSeconds). */
  startedSecondsAgo?: number;
  /** What its guest agent lists (network-get-interfaces' `result`, as given), or null for the simulator's lo and ens18. */
  guestInterfaces?: GuestInterface[] | null;
}

function plantProblems(body: unknown, sim: Simulator): string[] {
  if (typeof body !== 'object' || body === null) return ['the body must be a JSON object'];
  const p = body as Partial<VmPlant>;
  const problems: string[] = [];
  if (typeof p.node !== 'string' || !sim.state.nodes.has(p.node)) problems.push(`node: must be one of ${[...sim.state.nodes.keys()].join(', ')}`);
  if (!Number.isInteger(p.vmid) || (p.vmid as number) < 100) problems.push('vmid: must be an integer of at least 100');
  if (p.status !== undefined && p.status !== 'running' && p.status !== 'stopped') problems.push('status: running or stopped');
  if (p.config !== undefined && (typeof p.config !== 'object' || p.config === null)) problems.push('config: must be an object');
  const interfaces: unknown = p.guestInterfaces;
  const named = (i: unknown): boolean => typeof i === 'object' && i !== null && typeof (i as { name?: unknown }).name === 'string';
  if (interfaces !== undefined && interfaces !== null && !(Array.isArray(interfaces) && interfaces.every(named))) {
    problems.push('guestInterfaces: must be a list of interfaces, each an object with a name, or null');
  }
  // A VMID is unique in the cluster (pmxcfs): one held on another node cannot be planted here.
  const held = typeof p.vmid === 'number' ? sim.state.vmAt(p.vmid) : undefined;
  if (held !== undefined && held.node !== p.node) problems.push(`vmid: ${String(p.vmid)} is already held on node ${held.node}`);
  return problems;
}

function plant(sim: Simulator, p: VmPlant): SimVm {
  const now = sim.now();
  let vm = sim.state.findVm(p.node, p.vmid);
  if (vm === undefined) {
    vm = { vmid: p.vmid, node: p.node, config: { ...(p.config ?? {}) }, status: 'stopped', paused: false, cloning: false, origin: 'seeded', ...freshVmState(now) };
    sim.state.addVm(vm);
  } else if (p.config !== undefined) vm.config = { ...p.config };
  if (p.status !== undefined) {
    vm.status = p.status;
    vm.startedAt = p.status === 'running' ? sim.now() - (p.startedSecondsAgo ?? 0) * 1000 : undefined;
  }
  if (p.paused !== undefined) vm.paused = p.paused;
  if (p.guestInterfaces === null) delete vm.guestInterfaces;
  else if (p.guestInterfaces !== undefined) vm.guestInterfaces = p.guestInterfaces;
  if (p.lock === null) delete vm.config.lock;
  else if (typeof p.lock === 'string') vm.config.lock = p.lock;
  touched(vm, now);
  return vm;
}

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const text = await readText(req, 16 * 1024 * 1024);
  return text === '' ? {} : (JSON.parse(text) as unknown);
}

/** Answers a /_sim/ request; the path is already known to start with /_sim/. */
export async function handleControl(sim: Simulator, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const route = `${req.method ?? 'GET'} ${path}`;
  sim.settle();
  switch (route) {
    case 'GET /_sim/state':
      return sendJson(res, 200, stateView(sim));
    case 'GET /_sim/requests':
      return sendJson(res, 200, { requests: sim.requests });
    case 'DELETE /_sim/requests':
      sim.requests.length = 0;
      return sendJson(res, 200, { cleared: true });
    case 'GET /_sim/capacity':
      return sendJson(res, 200, sim.daemons.counters());
    case 'DELETE /_sim/capacity':
      sim.daemons.resetCounters();
      return sendJson(res, 200, sim.daemons.counters());
    case 'GET /_sim/guests':
      await sim.guests.idle();
      return sendJson(res, 200, sim.guests.view());
    case 'GET /_sim/nodes':
      return sendJson(res, 200, { entryNode: sim.entryNode, nodeUrls: sim.nodeUrls });
    case 'GET /_sim/faults':
      return sendJson(res, 200, sim.faults.current());
    case 'POST /_sim/faults': {
      const body = await jsonBody(req).catch(() => undefined);
      const problems = faultSetProblems(body);
      if (problems.length > 0) return sendJson(res, 400, { problems });
      sim.faults.replace(body as FaultSet);
      return sendJson(res, 200, sim.faults.current());
    }
    case 'POST /_sim/reset':
      sim.reset();
      return sendJson(res, 200, { reset: true });
    case 'POST /_sim/vms': {
      const body = await jsonBody(req).catch(() => undefined);
      const problems = plantProblems(body, sim);
      if (problems.length > 0) return sendJson(res, 400, { problems });
      return sendJson(res, 200, vmView(plant(sim, body as VmPlant)));
    }
    case 'GET /_sim/storages':
      return sendJson(res, 200, { storages: storageCfgView(sim.state) });
    case 'POST /_sim/storages': {
      const body = await jsonBody(req).catch(() => undefined);
      const problems = storageChangeProblems(body, sim.state);
      if (problems.length > 0) return sendJson(res, 400, { problems });
      changeStorage(sim.state, body as StorageChange);
      return sendJson(res, 200, { storages: storageCfgView(sim.state) });
    }
    case 'POST /_sim/offline': {
      const body = await jsonBody(req).catch(() => undefined);
      const problems = offlineProblems(body);
      if (problems.length > 0) return sendJson(res, 400, { problems });
      return answerOffline(sim, res, (body as { seconds: number }).seconds);
    }
    default:
      return sendJson(res, 404, { problems: [`no such simulator endpoint: ${route}`] });
  }
}
