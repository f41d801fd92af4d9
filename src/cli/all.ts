// `pve-provisioner all` (SPEC 6): web and worker in one process, and first
// the simulator when proxmox.url is "sim" (the default, SPEC 7, 8), so
// `npm start` gives a working service with no set-up. Exit 2 on bad
// config or credentials files, 0 after a clean shutdown.
import { ConfigError } from '../config/index.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { metrics, type Metrics } from '../metrics.js';
import type { WorkerService } from '../worker/service.js';
import { startWorkerProcess } from '../worker/start.js';
import { startSimulator, type RunningSimulator } from '../sim/index.js';
import { keepStateIn } from '../sim/state-file.js';
import { ensureSimToken } from '../sim/token-file.js';
import { parseArgs } from 'node:util';
import { loadConfigOrExplain, waitForSignal } from './common.js';
import { answerUsage, describeParseError, wantsHelp } from './help.js';
import { redisUrlSetByUser, startPrivateRedisIfNeeded } from './private-redis.js';
import { processLogger, startWebOrExplain } from './web.js';
import { withSimScaledTimes } from './sim-scaled-times.js';
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
  /** The simulator, when proxmox.url is "sim". */
  sim?: RunningSimulator;
  close(): Promise<void>;
}

export interface StartAllOptions {
  metrics?: Metrics;
  /** Ports instead of http.port and sim.port (0 picks a free one; tests). */
  webPort?: number;
  simPort?: number;
}

async function startSimulatorFor(config: Config, logger: Logger, port: number): Promise<RunningSimulator> {
  const { token, created } = await ensureSimToken(config.proxmox.tokenFile);
  if (created) logger.info({ file: config.proxmox.tokenFile }, `created ${config.proxmox.tokenFile} with a random simulator API token (mode 0600)`);
  const started = await startSimulator({ ...config.sim, port, tokens: [token], logger });
  const sim = config.sim.stateFile === '' ? started : await keepStateIn(started, config.sim.stateFile).catch(async (err: unknown) => {
    await started.close();
    throw err;
  });
  if (config.sim.stateFile !== '') logger.info({ file: config.sim.stateFile }, `the simulator keeps its VMs and volumes in ${config.sim.stateFile} (sim.stateFile)`);
  logger.warn(
    { proxmox: sim.url, nodeUrls: sim.nodeUrls },
    `proxmox.url is "sim": VMs are made on the built-in Proxmox VE simulator at ${sim.url}, not on a real host ` +
      `(each node's own pveproxy: ${Object.entries(sim.nodeUrls).map(([node, url]) => `${node} ${url}`).join(', ')}). Set PROXMOX_URL=https://your-host:8006 for a real one.`,
  );
  return sim;
}

/**
 * Starts the simulator (for "sim"), the web server and the workers. Resolves undefined
 * after writing to stderr why the web server, or the worker on a config it
 * checks only at start (webhooks.secretFile), could not start.
 */
export async function startAll(config: Config, logger: Logger, options: StartAllOptions = {}): Promise<RunningAll | undefined> {
  const processMetrics = options.metrics ?? metrics;
  const sim = config.proxmox.url === 'sim' ? await startSimulatorFor(config, logger, options.simPort ?? config.sim.port) : undefined;
  const stopSim = async (): Promise<void> => {
    await sim?.close();
  };
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
    worker = await startWorkerProcess({ config, logger, metrics: processMetrics, proxmoxUrl: sim?.url ?? config.proxmox.url });
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
  Runs web and worker in one process, and the simulator first when proxmox.url is "sim".
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
