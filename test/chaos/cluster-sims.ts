// The simulated clusters of a several-clusters chaos run (SPEC 32): one
// simulator each, in the test's process so the run takes a cluster away
// and back exactly when it wants (offline()/online()), on the `sim`
// config section's defaults as `pve-provisioner sim` runs them, each with
// a token file of its own; and the environment that gives the worker
// processes those clusters.
import { readFileSync } from 'node:fs';
import { newTokenFile } from '../../bench/_processes.js';
import { loadConfig } from '../../src/config/index.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import type { SimStateView } from './invariants.js';

export interface ChaosCluster {
  name: string;
  running: RunningSimulator;
  tokenFile: string;
  /** A /_sim/ call over HTTP (refused while the cluster is away). */
  control<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T>;
  state(): Promise<SimStateView>;
  isAway(): boolean;
}

async function startOne(name: string, timeScale: number, vms: number): Promise<ChaosCluster> {
  const tokenFile = newTokenFile();
  const token = readFileSync(tokenFile, 'utf8').trim();
  const running = await startSimulator({ ...loadConfig({ env: {} }).sim, port: 0, timeScale, vms, clusterName: name, tokens: [token] });
  const control = async <T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${running.url}${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    if (!res.ok) throw new Error(`${name} ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    name,
    running,
    tokenFile,
    control,
    state: () => control<SimStateView>('GET', '/_sim/state'),
    isAway: () => running.sim.reachability?.isOffline() ?? false,
  };
}

export async function startChaosClusters(names: readonly string[], timeScale: number, vms: number): Promise<ChaosCluster[]> {
  const started: ChaosCluster[] = [];
  try {
    for (const name of names) started.push(await startOne(name, timeScale, vms));
  } catch (err) {
    await Promise.all(started.map((c) => c.running.close()));
    throw err;
  }
  return started;
}

/** proxmox.clusters in the configured order; the single-cluster keys the first's (a worker's fallback). */
export function clustersEnv(clusters: readonly ChaosCluster[]): Record<string, string> {
  const [first] = clusters;
  if (first === undefined) throw new Error('no cluster');
  return {
    PROXMOX_CLUSTERS: JSON.stringify(clusters.map((c) => ({ name: c.name, url: c.running.url, tokenFile: c.tokenFile }))),
    PROXMOX_URL: first.running.url,
    PROXMOX_TOKEN_FILE: first.tokenFile,
  };
}
