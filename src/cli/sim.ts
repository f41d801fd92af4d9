// `pve-provisioner sim [--port N] [--vms N] [--tls-cert F --tls-key F]`:
// the Proxmox VE simulator alone (SPEC 6, 8), on the `sim` config section.
// It accepts the token in proxmox.tokenFile (created when missing) and
// prints the URL it listens on and each node's own (SPEC 28), never the
// token. With several clusters (SPEC 32: SIM_CLUSTERS=2, proxmox.clusters)
// one simulator per cluster whose url is "sim", each accepting its
// cluster's tokenFile, the first on --port, each printed with its cluster.
// Exit 2 on bad flags.
import { loadConfig } from '../config/index.js';
import { clustersOf, isMultiCluster } from '../config/clusters.js';
import type { Config } from '../config/types.js';
import { createLogger } from '../log.js';
import { waitForSignal } from './common.js';
import { BadInput, parseFlags } from './flags.js';
import { answerUsage, wantsHelp } from './help.js';
import { simulatedClustersOf, startClusterSimulators, type ClusterSimulator } from './sim-clusters.js';

const USAGE = 'usage: pve-provisioner sim [--port N] [--vms N] [--tls-cert FILE --tls-key FILE]\n';

interface SimFlags {
  port?: number;
  vms?: number;
  tlsCert?: string;
  tlsKey?: string;
}

function wholeNumber(flag: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) > max) throw new BadInput(`${flag} "${text}": must be a whole number from 0 to ${max}`);
  return Number(text);
}

export function parseSimFlags(args: string[]): SimFlags {
  const values = parseFlags(args, { port: { type: 'string' }, vms: { type: 'string' }, 'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' } });
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined)) throw new BadInput('--tls-cert and --tls-key go together: give both or neither');
  return {
    port: wholeNumber('--port', values.port, 65535),
    vms: wholeNumber('--vms', values.vms, 1_000_000),
    tlsCert: cert,
    tlsKey: key,
  };
}

/** One line per node: the URL whose calls enter that node's pveproxy (SPEC 28). */
export function nodeUrlLines(nodeUrls: Record<string, string>, mainUrl: string): string {
  return Object.entries(nodeUrls)
    .map(([node, url]) => `  node ${node}: ${url}${url === mainUrl ? ' (the URL above)' : ''}; calls sent there enter ${node}'s pveproxy\n`)
    .join('');
}

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('sim', USAGE, undefined);
  let flags: SimFlags;
  try {
    flags = parseSimFlags(args);
  } catch (err) {
    if (!(err instanceof BadInput)) throw err;
    return answerUsage('sim', USAGE, err.message);
  }
  const loaded = loadConfig();
  const config: Config = {
    ...loaded,
    sim: { ...loaded.sim, vms: flags.vms ?? loaded.sim.vms, tlsCert: flags.tlsCert ?? loaded.sim.tlsCert, tlsKey: flags.tlsKey ?? loaded.sim.tlsKey },
  };
  // The one-cluster form simulates its cluster whatever proxmox.url says (a worker elsewhere may name the simulator's URL).
  const clusters = isMultiCluster(config) ? simulatedClustersOf(config) : clustersOf(config);
  if (clusters.length === 0) {
    process.stderr.write('pve-provisioner sim: no entry of proxmox.clusters has url "sim": nothing to simulate\n');
    return 2;
  }
  const sims = await startClusterSimulators(config, {
    clusters,
    logger: createLogger({ level: config.log.level, pretty: config.log.pretty, name: 'pve-provisioner-sim' }),
    firstPort: flags.port ?? config.sim.port,
    onTokenFileCreated: (file) => process.stdout.write(`created ${file} with a random API token (mode 0600)\n`),
  });
  for (const one of sims.list) process.stdout.write(listeningLines(config, one));
  await waitForSignal();
  await sims.close();
  return 0;
}

/** What the simulator of one cluster prints: its URL, nodes and token file; with several clusters the cluster's name first. */
function listeningLines(config: Config, one: ClusterSimulator): string {
  const { running } = one;
  const of = isMultiCluster(config) ? ` of cluster ${one.cluster}` : '';
  return (
    `Proxmox VE simulator${of} listening on ${running.url} (API ${running.url}/api2/json, nodes ${config.sim.nodes.join(', ')}); ` +
    `it accepts the token in ${one.tokenFile}\n${nodeUrlLines(running.nodeUrls, running.url)}`
  );
}
