// `pve-provisioner web`: the HTTP API, Bull Board and metrics (SPEC 6).
// Exit 2 when config or the credentials files are wrong (reason on
// stderr), 0 after a clean shutdown on SIGINT or SIGTERM.
import type { Config } from '../config/index.js';
import { createLogger, type Logger } from '../log.js';
import { metrics, type Metrics } from '../metrics.js';
import { logRedisOutagesTo } from '../queue/redis-outage.js';
import { logOpenSecretFilesTo } from '../secrets/file-mode.js';
import { CredentialsError } from '../web/auth/credentials.js';
import { startWebServer, type WebServer } from '../web/server.js';
import { loadConfigOrExplain, plainArguments, waitForSignal } from './common.js';
import { watchSimulator } from './sim-check.js';

/** The process's logger, which also says when Redis is down (SPEC 24). */
export function processLogger(config: Config): Logger {
  const logger = createLogger({ level: config.log.level, pretty: config.log.pretty });
  logRedisOutagesTo(logger);
  logOpenSecretFilesTo(logger);
  return logger;
}

/** The web server, or undefined after writing why to stderr (bad credentials files). */
export async function startWebOrExplain(command: string, config: Config, logger: Logger, processMetrics: Metrics = metrics): Promise<WebServer | undefined> {
  try {
    return await startWebServer(config, logger, { metrics: processMetrics });
  } catch (err) {
    if (err instanceof CredentialsError) {
      process.stderr.write(`pve-provisioner ${command}: ${err.message}\n`);
      return undefined;
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`pve-provisioner ${command}: ${config.http.host}:${config.http.port} is in use; choose another http.port (HTTP_PORT)\n`);
      return undefined;
    }
    throw err;
  }
}

export async function run(args: string[]): Promise<number> {
  const refused = plainArguments('web', args);
  if (refused !== undefined) return refused;
  const config = loadConfigOrExplain('web');
  if (config === undefined) return 2;
  const logger = processLogger(config);
  const server = await startWebOrExplain('web', config, logger);
  if (server === undefined) return 2;
  const simulator = watchSimulator(config, logger, 'web');
  const signal = await waitForSignal();
  simulator?.stop();
  logger.info({ signal }, 'shutting down the web server');
  await server.close();
  return 0;
}
