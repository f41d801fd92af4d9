// One Proxmox VE simulator per cluster whose url is "sim" (SPEC 8, 32),
// for `all` and `sim`: each its own server, ports, VMIDs and state, the
// i-th on sim.port + i, each accepting the token
// of its cluster's tokenFile (created 0600 when missing). In the
// one-cluster form that is the one simulator of proxmox.url "sim", as
// before. With sim.stateFile set the first keeps its VMs in that file and
// each other in one named after its cluster (docs/decisions.md).
import { basename, dirname, extname, join } from 'node:path';
import { clustersOf, isMultiCluster } from '../config/clusters.js';
import type { ClusterConfig, Config } from '../config/types.js';
import type { Logger } from '../log.js';
import { startSimulator, type RunningSimulator } from '../sim/index.js';
import { keepStateIn } from '../sim/state-file.js';
import { ensureSimToken } from '../sim/token-file.js';

export interface ClusterSimulator {
  /** The cluster's name (`default` in the one-cluster form). */
  cluster: string;
  running: RunningSimulator;
  /** The file whose token it accepts. */
  tokenFile: string;
  /** Where it keeps its VMs; absent without sim.stateFile. */
  stateFile?: string;
}

export interface ClusterSimulators {
  /** In the configured order of the clusters. */
  list: readonly ClusterSimulator[];
  /** Each simulated cluster's URL by its name: what startWorkerProcess's proxmoxUrls takes. */
  urls: ReadonlyMap<string, string>;
  /** Closes every simulator (each writes its state file a last time). */
  close(): Promise<void>;
}

export interface StartClusterSimulatorsOptions {
  logger: Logger;
  /** The clusters to simulate, in order; those whose url is "sim" unless given. */
  clusters?: readonly ClusterConfig[];
  /** The first simulator's port (sim.port unless given; 0 picks a free one). */
  firstPort?: number;
  /** Told of each token file the start created. */
  onTokenFileCreated?: (file: string) => void;
}

/** The clusters a process starts a simulator for: those whose url is "sim". */
export function simulatedClustersOf(config: Pick<Config, 'proxmox'>): ClusterConfig[] {
  return clustersOf(config).filter((cluster) => cluster.url === 'sim');
}

/**
 * The port of the simulated cluster at `index`: sim.port + index, so a
 * worker or `verify --cluster` in another process finds each; with port
 * 0 (a free one) every cluster's is free.
 */
export function simPortFor(firstPort: number, index: number): number {
  return firstPort === 0 ? 0 : firstPort + index;
}

/** Where each simulated cluster listens, as a process that did not start them (a worker, verify) finds it: sim.port + its index among them. */
export function simulatedClusterUrls(config: Pick<Config, 'proxmox' | 'sim'>): Map<string, string> {
  const simulated = clustersOf(config).filter((cluster) => cluster.url === 'sim');
  return new Map(simulated.map((cluster, i) => [cluster.name, `http://${config.sim.host}:${simPortFor(config.sim.port, i)}`]));
}

/** sim.stateFile for the simulated cluster at `index`: the file itself for the first, `<name>.<cluster><ext>` beside it for the others. */
export function stateFileFor(stateFile: string, index: number, cluster: string): string {
  if (index === 0) return stateFile;
  const ext = extname(stateFile);
  return join(dirname(stateFile), `${basename(stateFile, ext)}.${cluster}${ext}`);
}

async function startOne(config: Config, cluster: ClusterConfig, index: number, options: StartClusterSimulatorsOptions): Promise<ClusterSimulator> {
  const { token, created } = await ensureSimToken(cluster.tokenFile);
  if (created) options.onTokenFileCreated?.(cluster.tokenFile);
  const port = simPortFor(options.firstPort ?? config.sim.port, index);
  // The one-cluster form's simulator is the one it always was, its cluster still `pv1` in /cluster/status.
  const clusterName = isMultiCluster(config) ? cluster.name : undefined;
  const started = await startSimulator({ ...config.sim, port, tokens: [token], logger: options.logger, ...(clusterName === undefined ? {} : { clusterName }) });
  if (config.sim.stateFile === '') return { cluster: cluster.name, running: started, tokenFile: cluster.tokenFile };
  const stateFile = stateFileFor(config.sim.stateFile, index, cluster.name);
  const running = await keepStateIn(started, stateFile).catch(async (err: unknown) => {
    await started.close();
    throw err;
  });
  return { cluster: cluster.name, running, tokenFile: cluster.tokenFile, stateFile };
}

/** Starts them one after the other; a failure closes those already started. */
export async function startClusterSimulators(config: Config, options: StartClusterSimulatorsOptions): Promise<ClusterSimulators> {
  const list: ClusterSimulator[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(list.map((one) => one.running.close()));
  };
  try {
    for (const [index, cluster] of (options.clusters ?? simulatedClustersOf(config)).entries()) list.push(await startOne(config, cluster, index, options));
  } catch (err) {
    await close();
    throw err;
  }
  return { list, urls: new Map(list.map((one) => [one.cluster, one.running.url])), close };
}
