// `pve-provisioner worker` (SPEC 6): runs the job workers against the
// Proxmox API of proxmox.url (the simulator on sim.host:sim.port when it
// is "sim"). SIGTERM or SIGINT: no new jobs, running ones get
// jobs.shutdownGraceSeconds, then exit 0. Exit 2 on bad config.
import { simulatedClusterUrls } from './sim-clusters.js';
import { ConfigError } from '../config/index.js';
import { listenerLimitsOf } from '../listener-limits.js';
import { createLogger } from '../log.js';
import { metrics } from '../metrics.js';
import { logRedisOutagesTo } from '../queue/redis-outage.js';
import { logOpenSecretFilesTo } from '../secrets/file-mode.js';
import { handleShutdownSignals } from '../worker/shutdown.js';
import type { WorkerService } from '../worker/service.js';
import { startWorkerProcess } from '../worker/start.js';
import { ensureSimToken } from '../sim/token-file.js';
import { serveMetrics } from '../web/metrics-server.js';
import { loadConfigOrExplain, plainArguments } from './common.js';
import { watchSimulator } from './sim-check.js';

/** After exit is decided, anything still open (sockets, timers) gets this long. */
const EXIT_SETTLE_MS = 2_000;

export async function run(args: string[]): Promise<number> {
  const refused = plainArguments('worker', args);
  if (refused !== undefined) return refused;
  const config = loadConfigOrExplain('worker');
  if (config === undefined) return 2;
  const logger = createLogger({ level: config.log.level, pretty: config.log.pretty, name: 'pve-provisioner-worker' });
  logRedisOutagesTo(logger);
  logOpenSecretFilesTo(logger);
  const sim = config.proxmox.url === 'sim';
  const baseUrl = sim ? `http://${config.sim.host}:${config.sim.port}` : config.proxmox.url;
  if (sim) {
    await ensureSimToken(config.proxmox.tokenFile);
    logger.warn({ proxmox: baseUrl }, `proxmox.url is "sim": jobs run against the built-in simulator at ${baseUrl}, not a real host`);
  }
  const simulator = watchSimulator(config, logger, 'worker');
  let service: WorkerService;
  try {
    service = await startWorkerProcess({ config, logger, metrics, proxmoxUrl: baseUrl, proxmoxUrls: simulatedClusterUrls(config) });
  } catch (err) {
    simulator?.stop();
    // A config the worker finds wrong only at start (webhooks.secretFile): exit 2, as for any bad config.
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`pve-provisioner worker: ${err.message}\n`);
    return 2;
  }
  const metricsServer = config.worker.metricsPort === 0 ? undefined : await serveMetrics(metrics.registry, config.http.host, config.worker.metricsPort, { limits: listenerLimitsOf(config.http), logger });
  if (metricsServer) logger.info({ metrics: metricsServer.url }, `worker metrics at ${metricsServer.url}`);
  const code = await new Promise<number>((exit) => {
    handleShutdownSignals(service, logger, { graceMs: config.jobs.shutdownGraceSeconds * 1000, exit });
  });
  simulator?.stop();
  await metricsServer?.close();
  setTimeout(() => process.exit(code), EXIT_SETTLE_MS).unref();
  return code;
}
