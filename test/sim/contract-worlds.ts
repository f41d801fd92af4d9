// The two Proxmox worlds the contract suite runs the same scenarios in:
// the simulator over HTTP through the real client (createHttpApi), and the
// in-memory fake of test/fakes. A scenario sees only the seam and a `tick`
// that lets simulated time pass.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { FakeProxmox, type FakeNodeInit } from '../fakes/fake-proxmox.js';
import { TOKEN, startTestSim, type TestSim } from './sim-helpers.js';

export interface World {
  name: string;
  api: ProxmoxApi;
  /** Lets one simulated second pass (the fake ends a task after its polls instead). */
  tick(): void;
  /** Puts a stopped VM with this config at vmid on node. */
  plant(node: string, vmid: number, config: Record<string, string | number>): Promise<void>;
  /** Refuses volume deletes on a storage for want of Datastore.Allocate (F13). */
  denyAllocate(storage: string): Promise<void>;
  /** Takes Datastore.AllocateSpace away on a storage (clone 403, resize task `403 ...`, audit 4c). */
  denyAllocateSpace(storage: string): Promise<void>;
  /** storage.cfg's `disable` and `nodes` of one storage (SPEC 28); `nodes: null` lifts the restriction. */
  setStorage(storage: string, change: { disable?: boolean; nodes?: string[] | null }): Promise<void>;
  /** Runs pvestatd's next cycle (with `statdLag`; audit 7): the simulator's clock moves to its start. */
  statdCycle(): void;
  /** The next task of this type fails with this exitstatus (the simulator's failTasks fault, the fake's setNextTaskOutcome). */
  failNextTask(type: string, exitstatus: string): Promise<void>;
  close(): Promise<void>;
}

const STORAGES = [
  { storage: 'local', content: 'backup,vztmpl,iso', type: 'dir' },
  { storage: 'local-lvm', content: 'rootdir,images', type: 'lvmthin' },
  { storage: 'proxy-seeds', content: 'iso', type: 'dir' },
];

export interface WorldOptions {
  /** pvestatd's lag in /cluster/resources: 10 s in the simulator, explicit cycles in the fake. Off by default in both. */
  statdLag?: boolean;
  /** The simulator's clone time (default 2 s); the fake's tasks end by polls. */
  cloneSeconds?: number;
}

const STATD_SECONDS = 10;

/**
 * The simulator with its starting cluster: node i holds templates 9001+i
 * and 9100+i, the first node 9200 on the shared vm-shared (SPEC 23).
 */
export async function simWorld(nodes: string[], options: WorldOptions = {}): Promise<World> {
  const sim: TestSim = await startTestSim({
    nodes,
    vms: 0,
    agentSeconds: 0,
    statdSeconds: options.statdLag ? STATD_SECONDS : 0,
    ...(options.cloneSeconds !== undefined ? { cloneSeconds: options.cloneSeconds } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), 'sim-contract-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  return {
    name: 'simulator over HTTP',
    api: createHttpApi({ baseUrl: sim.url, tokenFile }),
    tick: () => sim.clock.advance(1),
    plant: async (node, vmid, config) => {
      await sim.control('POST', 'vms', { node, vmid, config });
    },
    denyAllocate: (storage) => sim.faults({ denyAllocate: [storage] }),
    denyAllocateSpace: (storage) => sim.faults({ denyAllocateSpace: [storage] }),
    setStorage: async (storage, change) => {
      await sim.control('POST', 'storages', { storage, ...change });
    },
    // To the next cycle's start: what changed before it is sampled, nothing after.
    statdCycle: () => sim.clock.advance(STATD_SECONDS - ((sim.clock.ms / 1000) % STATD_SECONDS)),
    failNextTask: (type, exitstatus) => sim.faults({ failTasks: [{ type, exitstatus, count: 1 }] }),
    close: async () => {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The fake with the same debian and shared templates (9001+i, 9200); it has no ubuntu ones. */
export function fakeWorld(nodes: string[], options: WorldOptions = {}): Promise<World> {
  const fake = new FakeProxmox({
    nodes: nodes.map((name): FakeNodeInit => ({ name, storages: STORAGES })),
    apiNode: nodes[0],
    sharedTemplate: true,
    // A cycle only when the scenario lets one pass.
    statdEvery: options.statdLag ? Number.MAX_SAFE_INTEGER : 0,
  });
  return Promise.resolve({
    name: 'in-memory fake',
    api: fake,
    tick: () => undefined,
    plant: (node, vmid, config) => {
      fake.addVm({ vmid, node, config });
      return Promise.resolve();
    },
    denyAllocate: (storage) => {
      fake.deleteForbidden.add(storage);
      return Promise.resolve();
    },
    denyAllocateSpace: (storage) => {
      fake.denyAllocateSpace.add(storage);
      return Promise.resolve();
    },
    setStorage: (storage, change) => {
      if (change.disable === true) fake.disabledStorages.add(storage);
      if (change.disable === false) fake.disabledStorages.delete(storage);
      if (change.nodes === null) fake.storageNodes.delete(storage);
      else if (change.nodes !== undefined) fake.storageNodes.set(storage, change.nodes);
      return Promise.resolve();
    },
    statdCycle: () => fake.statdCycle(),
    failNextTask: (type, exitstatus) => {
      fake.setNextTaskOutcome(type, { exitstatus });
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  });
}
