// sim.stateFile (SPEC 24): the simulator keeps its VMs and volumes in a
// file across restarts, so after `npm start` again the registry in Redis
// and the simulated cluster still agree and a sweep re-creates nothing.
// Loaded once at start (replacing the fresh population); written after
// requests, at most once per debounce interval and at close, to a
// temporary file renamed over the old one, so a crash mid-write leaves the
// previous state whole. An ISO's kept bytes (SPEC 29) are not saved: after
// a restart it is metadata only, and a VM booted from it keeps what its
// guest read (its seed) until its next start. Tasks are not kept: one running at close ends with
// the process, as on a rebooted node, and a VM still mid-clone is dropped
// (its clone never finished).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RunningSimulator } from './server.js';
import type { Simulator } from './simulator.js';
import { freshVmState, touched, type SimVm, type SimVolume } from './state.js';

const FORMAT = 'pve-provisioner-sim-state/1';
const DEFAULT_DEBOUNCE_MS = 1000;

interface SavedState {
  format: typeof FORMAT;
  savedAt: string;
  vms: SimVm[];
  volumes: { node: string; storage: string; key: string; volume: SimVolume }[];
}

export interface KeptSimulator extends RunningSimulator {
  /** What the file held at start; undefined when there was none. */
  loaded: { vms: number; volumes: number } | undefined;
  /** Writes the state now (tests; close does it too). */
  save(): Promise<void>;
}

export class StateFileError extends Error {
  override readonly name = 'StateFileError';
}

/** A VM as saved: the caches rebuilt from the config are left out. */
function savedVm(vm: SimVm): SimVm {
  return Object.fromEntries(Object.entries(vm).filter(([key]) => !key.startsWith('cached'))) as unknown as SimVm;
}

function serializeState(sim: Simulator, now: Date = new Date()): string {
  sim.settle();
  const vms = [...sim.state.allVms()].filter((vm) => !vm.cloning).map(savedVm);
  const volumes: SavedState['volumes'] = [];
  for (const node of sim.state.nodes.values()) {
    for (const storage of node.storages.values()) {
      for (const [key, volume] of storage.volumes) volumes.push({ node: node.node, storage: storage.storage, key, volume: { ...volume, bytes: undefined } });
    }
  }
  const state: SavedState = { format: FORMAT, savedAt: now.toISOString(), vms, volumes };
  return JSON.stringify(state);
}

function parseState(path: string, text: string): SavedState {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new StateFileError(`sim.stateFile ${path} is not JSON (${err instanceof Error ? err.message : String(err)}); remove it to start with a fresh simulator`);
  }
  const state = parsed as Partial<SavedState> | null;
  if (state?.format !== FORMAT || !Array.isArray(state.vms) || !Array.isArray(state.volumes)) {
    throw new StateFileError(`sim.stateFile ${path} is not a simulator state file (format ${FORMAT}); remove it to start with a fresh simulator`);
  }
  return state as SavedState;
}

/** Replaces the simulator's VMs and volumes with the saved ones, on the nodes and storages it has. */
function applyState(sim: Simulator, state: SavedState): { vms: number; volumes: number } {
  sim.settle();
  for (const vm of [...sim.state.allVms()]) sim.state.removeVm(vm);
  for (const node of sim.state.nodes.values()) for (const storage of node.storages.values()) storage.volumes.clear();
  let vms = 0;
  for (const vm of state.vms) {
    if (!sim.state.nodes.has(vm.node)) continue;
    // A restored VM is long settled: pvestatd's first cycle after the restart samples it.
    const restored: SimVm = { ...vm, cloning: false, ...freshVmState(0) };
    touched(restored, 0);
    sim.state.addVm(restored);
    vms++;
  }
  let volumes = 0;
  for (const { node, storage, key, volume } of state.volumes) {
    const found = sim.state.nodes.get(node)?.storages.get(storage);
    if (found === undefined) continue;
    found.volumes.set(key, volume);
    volumes++;
  }
  return { vms, volumes };
}

async function readState(path: string): Promise<SavedState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(`sim.stateFile ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseState(path, text);
}

/**
 * Loads `path` into the running simulator (when the file exists) and keeps
 * it up to date; the returned simulator's close() writes it a last time.
 */
export async function keepStateIn(running: RunningSimulator, path: string, options: { debounceMs?: number } = {}): Promise<KeptSimulator> {
  const { sim } = running;
  const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
  const saved = await readState(path);
  const loaded = saved === undefined ? undefined : applyState(sim, saved);
  await mkdir(dirname(path), { recursive: true });

  let written = '';
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const write = async (): Promise<void> => {
    const json = serializeState(sim);
    // savedAt aside, nothing changed: no write.
    const body = json.replace(/"savedAt":"[^"]*",/, '');
    if (body === written) return;
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, json, { mode: 0o600 });
    await rename(temporary, path);
    written = body;
  };
  const save = (): Promise<void> => (writing = writing.then(write, write));
  sim.onRecord = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      save().catch(() => undefined); // the next request, or close, tries again
    }, debounceMs).unref();
  };
  await save();
  return {
    ...running,
    loaded,
    save,
    async close() {
      await running.close();
      sim.onRecord = undefined;
      clearTimeout(timer);
      timer = undefined;
      await save();
    },
  };
}
