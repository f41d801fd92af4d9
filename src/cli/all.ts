// `pve-provisioner all` (SPEC 6): web and worker in one process, and first
// the simulator when proxmox.url is "sim" (the default, SPEC 7, 8), so
// `npm start` gives a working service with no set-up. Exit 2 on bad
// config or credentials files, 0 after a clean shutdown.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { metrics, type Metrics } from '../metrics.js';
import { createProvider } from '../provider/provider.js';
import { workerProxmoxApi } from './proxmox-api.js';
import { startWorkerService, type WorkerService } from '../queue/worker-service.js';
import { startSimulator, type RunningSimulator } from '../sim/index.js';
import { ensureSimToken } from '../sim/token-file.js';
import { loadConfigOrExplain, refusedArguments, waitForSignal } from './common.js';
import { processLogger, startWebOrExplain } from './web.js';
import type { WebServer } from '../web/server.js';

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
  const sim = await startSimulator({ ...config.sim, port, tokens: [token] });
  logger.warn(
    { proxmox: sim.url },
    `proxmox.url is "sim": VMs are made on the built-in Proxmox VE simulator at ${sim.url}, not on a real host. Set PROXMOX_URL=https://your-host:8006 for a real one.`,
  );
  return sim;
}

/**
 * Starts the simulator (for "sim"), the web server and the workers. Resolves undefined
 * after writing to stderr why the web server could not start.
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
  const web = await startWebOrExplain('all', webConfig, logger).catch(async (err: unknown) => {
    await stopSim();
    throw err;
  });
  if (web === undefined) {
    await stopSim();
    return undefined;
  }
  const proxmox = workerProxmoxApi(config, sim?.url ?? config.proxmox.url, logger, processMetrics);
  const provider = createProvider({ api: proxmox.api, config, logger });
  let worker: WorkerService;
  try {
    worker = await startWorkerService({ config, provider, logger, metrics: processMetrics });
  } catch (err) {
    await web.close();
    await proxmox.close();
    await stopSim();
    throw err;
  }
  return {
    web,
    worker,
    ...(sim ? { sim } : {}),
    async close() {
      await web.close();
      await worker.close();
      await proxmox.close();
      await stopSim();
    },
  };
}

export async function run(args: string[]): Promise<number> {
  if (refusedArguments('all', args)) return 2;
  const config = loadConfigOrExplain('all');
  if (config === undefined) return 2;
  const logger = processLogger(config);
  const running = await startAll(config, logger);
  if (running === undefined) return 2;
  const signal = await waitForSignal();
  logger.info({ signal }, 'shutting down: web server, then workers (running jobs get jobs.shutdownGraceSeconds)');
  await running.close();
  return 0;
}
