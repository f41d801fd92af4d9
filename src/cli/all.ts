// `pve-provisioner all` (SPEC 6): web and worker in one process, and first
// the simulator when proxmox.url is "sim" (the default, SPEC 7, 8), so
// `npm start` gives a working service with no set-up; with several
// clusters (SPEC 32) one simulator per cluster whose url is "sim"
// (`SIM_CLUSTERS=2 npm start`). Exit 2 on bad config or credentials
// files, 0 after a clean shutdown.
import { ConfigError } from '../config/index.js';
import type { Config } from '../config/index.js';
import { firstCluster, isMultiCluster } from '../config/clusters.js';
import type { Logger } from '../log.js';
import { metrics, type Metrics } from '../metrics.js';
import type { WorkerService } from '../worker/service.js';
import { startWorkerProcess } from '../worker/start.js';
import type { RunningSimulator } from '../sim/index.js';
import { parseArgs } from 'node:util';
import { loadConfigOrExplain, waitForSignal } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { redisUrlSetByUser, startPrivateRedisIfNeeded } from './private-redis.js';
import { processLogger, startWebOrExplain } from './web.js';
import { withSimScaledTimes } from './sim-scaled-times.js';
import { startClusterSimulators, type ClusterSimulator, type ClusterSimulators } from './sim-clusters.js';
import type { WebServer } from '../web/server.js';

/** sim.stateFile for `all` (npm start) when config leaves it empty. */
const ALL_SIM_STATE_FILE = 'var/sim-state.json';

/** SPEC 24: npm start keeps the simulator's VMs across restarts unless config or SIM_STATE_FILE says otherwise. */
export function withSimStateFile(config: Config, env: NodeJS.ProcessEnv): Config {
  if (config.sim.stateFile !== '' || env.SIM_STATE_FILE !== undefined) return config;
  return { ...config, sim: { ...config.sim, stateFile: ALL_SIM_STATE_FILE } };
}

export interface RunningAll {
  web: WebServer;
  worker: WorkerService;
  /** The simulator, when proxmox.url is "sim"; with several clusters (SPEC 32) the first simulated cluster's. */
  sim?: RunningSimulator;
  /** Every simulated cluster's simulator by cluster name (SPEC 32; `default` in the one-cluster form); empty when none is "sim". */
  sims: ReadonlyMap<string, RunningSimulator>;
  close(): Promise<void>;
}

export interface StartAllOptions {
  metrics?: Metrics;
  /** Ports instead of http.port and sim.port (0 picks a free one; tests). With several simulated clusters simPort is the first's. */
  webPort?: number;
  simPort?: number;
}

function announce(config: Config, logger: Logger, one: ClusterSimulator): void {
  const { running: sim, stateFile } = one;
  if (stateFile !== undefined) logger.info({ file: stateFile }, `the simulator keeps its VMs and volumes in ${stateFile} (sim.stateFile)`);
  const nodes = Object.entries(sim.nodeUrls).map(([node, url]) => `${node} ${url}`).join(', ');
  if (!isMultiCluster(config)) {
    logger.warn(
      { proxmox: sim.url, nodeUrls: sim.nodeUrls },
      `proxmox.url is "sim": VMs are made on the built-in Proxmox VE simulator at ${sim.url}, not on a real host ` +
        `(each node's own pveproxy: ${nodes}). Set PROXMOX_URL=https://your-host:8006 for a real one.`,
    );
    return;
  }
  logger.warn(
    { cluster: one.cluster, proxmox: sim.url, nodeUrls: sim.nodeUrls },
    `cluster ${one.cluster}'s url is "sim": its VMs are made on a built-in Proxmox VE simulator at ${sim.url}, not on a real host ` +
      `(each node's own pveproxy: ${nodes}; it accepts the token in ${one.tokenFile}).`,
  );
}

async function startSimulatorsFor(config: Config, logger: Logger, port: number): Promise<ClusterSimulators> {
  const sims = await startClusterSimulators(config, {
    logger,
    firstPort: port,
    onTokenFileCreated: (file) => logger.info({ file }, `created ${file} with a random simulator API token (mode 0600)`),
  });
  for (const one of sims.list) announce(config, logger, one);
  return sims;
}

/** Where the worker sends the first cluster's calls: its simulator's URL when it is "sim". */
function firstProxmoxUrl(config: Config, sims: ClusterSimulators): string {
  const first = firstCluster(config);
  return sims.urls.get(first.name) ?? (isMultiCluster(config) ? first.url : config.proxmox.url);
}

/**
 * Starts the simulator (for "sim"), the web server and the workers. Resolves undefined
 * after writing to stderr why the web server, or the worker on a config it
 * checks only at start (webhooks.secretFile), could not start.
 */
export async function startAll(config: Config, logger: Logger, options: StartAllOptions = {}): Promise<RunningAll | undefined> {
  const processMetrics = options.metrics ?? metrics;
  const sims = await startSimulatorsFor(config, logger, options.simPort ?? config.sim.port);
  const sim = sims.list[0]?.running;
  const stopSim = (): Promise<void> => sims.close();
  // The web server starts first: a bad credentials file or a taken port
  // stops the start before any worker has taken a job.
  const webConfig: Config = options.webPort === undefined ? config : { ...config, http: { ...config.http, port: options.webPort } };
  // The web /metrics serves the counters the worker below increments.
  const web = await startWebOrExplain('all', webConfig, logger, processMetrics).catch(async (err: unknown) => {
    await stopSim();
    throw err;
  });
  if (web === undefined) {
    await stopSim();
    return undefined;
  }
  let worker: WorkerService;
  try {
    worker = await startWorkerProcess({ config, logger, metrics: processMetrics, proxmoxUrl: firstProxmoxUrl(config, sims), proxmoxUrls: sims.urls });
  } catch (err) {
    await web.close();
    await stopSim();
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`pve-provisioner all: ${err.message}\n`);
    return undefined;
  }
  return {
    web,
    worker,
    ...(sim ? { sim } : {}),
    sims: new Map(sims.list.map((one) => [one.cluster, one.running])),
    async close() {
      await web.close();
      await worker.close();
      await stopSim();
    },
  };
}

/** After a clean close, anything still open (sockets, retry timers) gets this long. */
const EXIT_SETTLE_MS = 2_000;

const USAGE = `usage: pve-provisioner all [--private-redis]
  Runs web and worker in one process, and the simulator first when proxmox.url is "sim"
  (one per cluster whose url is "sim" with several clusters: SIM_CLUSTERS=2, proxmox.clusters).
  --private-redis  when redis.url is not set (REDIS_URL, PVE_PROVISIONER_CONFIG) and nothing
                   answers on it, start a private redis-server there (AOF on, data in var/redis),
                   stopped with the service; exit 2 when redis-server is not installed. npm start
                   passes it.
  Configured by environment variables and PVE_PROVISIONER_CONFIG (see README.md, "Configuration").
`;

export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) return answerUsage('all', USAGE, undefined);
  let privateRedis: boolean;
  try {
    const { values } = parseArgs({ args, options: { 'private-redis': { type: 'boolean' } }, strict: true, allowPositionals: false });
    privateRedis = values['private-redis'] === true;
  } catch (err) {
    return answerUsage('all', USAGE, describeParseError(err));
  }
  const loaded = loadConfigOrExplain('all');
  if (loaded === undefined) return 2;
  const config = withSimScaledTimes(withSimStateFile(loaded, process.env), process.env);
  const logger = processLogger(config);
  const redis = privateRedis ? await startPrivateRedisIfNeeded({ url: config.redis.url, setByUser: redisUrlSetByUser(process.env, config.redis.url), logger }) : { kind: 'configured' as const };
  if (redis.kind === 'missing') {
    process.stderr.write(`pve-provisioner all: ${redis.message}\n`);
    return 2;
  }
  const stopRedis = async (): Promise<void> => {
    if (redis.kind === 'private') await redis.close();
  };
  const running = await startAll(config, logger).catch(async (err: unknown) => {
    await stopRedis();
    throw err;
  });
  if (running === undefined) {
    await stopRedis();
    return 2;
  }
  const signal = await waitForSignal();
  logger.info({ signal }, 'shutting down: web server, then workers (running jobs get jobs.shutdownGraceSeconds)');
  try {
    await running.close();
  } finally {
    // Whatever the close met, the private redis-server is not left behind.
    await stopRedis();
  }
  // BullMQ's blocking connections keep trying a Redis that is down after
  // close; once everything is closed, nothing is left to wait for.
  setTimeout(() => process.exit(0), EXIT_SETTLE_MS).unref();
  return 0;
}
