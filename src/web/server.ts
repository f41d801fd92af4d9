// Builds the web process from config: its own Redis connections, the
// producer client, the queues for Bull Board and metrics, the credentials;
// then listens on http.host:http.port. `web` and `all` both start it here.
import { allNetworks } from '../config/clusters.js';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { createUncheckedProvisionerClient } from '../client.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { createWebConnection, type RedisClient } from '../queue/connection.js';
import { producerConfigPublisher } from '../queue/producer-config-store.js';
import { configuredTenants } from '../tenants/token-lines.js';
import { tenantWebhookPublisher } from '../tenants/webhook-publish.js';
import { keyPrefixOf } from '../queue/redis-target.js';
import { createQueues } from '../queue/queues.js';
import { createWebhookQueue } from '../queue/webhook-queue.js';
import { buildWebApp } from './app.js';
import { addressPoolFigures } from './address-pool-metrics.js';
import { tenantUsageReader } from './tenant-metrics.js';
import { loadCredentials, type Credentials } from './auth/credentials.js';
import { ensureFingerprintKey } from './fingerprint-key.js';
import { learnSecretFiles } from '../secrets/known-files.js';
import { BOARD_PATH } from './board.js';
import { redisReadinessSources } from './readiness-redis.js';
import { redisReadySignals } from '../queue/ready-signals.js';
import { redisDownProbe, type RedisDown } from './redis-down.js';

export interface WebServer {
  app: FastifyInstance;
  /** Base URL clients use, e.g. http://127.0.0.1:8080. */
  url: string;
  close(): Promise<void>;
}

export interface WebServerOptions {
  metrics: Metrics;
  /** Listen here instead of http.port (0 picks a free port). */
  port?: number;
}

/** How long the start waits for Redis's first answer before saying it is not reachable yet. */
const REDIS_FIRST_CONTACT_MS = 2_500;

/** True once the connection is ready; false when it failed first or did not answer within timeoutMs. */
function firstContact(redis: RedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const onError = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
    redis.once('error', onError);
  });
}

function publicHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** The web process's own Redis connection and what stands on it; `close` ends them all. */
function webConnections(config: Config, logger: Logger, credentials: Credentials | undefined) {
  // Fails fast when Redis is down, so a request answers instead of hanging.
  const redis = createWebConnection(config.redis);
  const redisDown = redisDownProbe(redis, config.redis);
  const prefix = keyPrefixOf(config.redis.prefix, config.redis);
  const queues = createQueues(redis, prefix);
  // Shown on Bull Board whether or not webhooks.url is set: deliveries left from when it was.
  const deliveries = createWebhookQueue(redis, prefix, config);
  // What a producer given no config goes by (SPEC 6, 27); rewritten on each reconnect.
  const published = producerConfigPublisher(redis, prefix, config);
  // The tenants' webhook URLs (SPEC 34), from the tokens file; without auth there is no file, and what is published stays.
  const webhooks = credentials === undefined ? undefined : tenantWebhookPublisher(redis, prefix, configuredTenants(credentials.apiTokens));
  const client = createUncheckedProvisionerClient({
    redisUrl: config.redis.url,
    redis: config.redis,
    prefix: config.redis.prefix,
    config,
    fingerprintKeyFile: config.http.fingerprintKeyFile,
    onConfigMismatch: ({ redisKey, differences, message }) => logger.warn({ redisKey, differences }, `${message}: another web or worker process on this prefix runs another config`),
  });
  const close = async (): Promise<void> => {
    published.stop();
    webhooks?.stop();
    await Promise.allSettled([client.close(), queues.close(), deliveries.close()]);
    redis.disconnect();
  };
  return { redis, redisDown, prefix, queues, deliveries, published, webhooks, client, close };
}

export async function startWebServer(config: Config, logger: Logger, options: WebServerOptions): Promise<WebServer> {
  const credentials = await loadCredentials(config, logger);
  await ensureFingerprintKey(config, logger);
  // The worker's secrets too (the Proxmox token, the webhook secret): the redactor knows them before any answer.
  await learnSecretFiles(config);
  const { redis, redisDown, prefix, queues, deliveries, published, webhooks, client, close: closeConnections } = webConnections(config, logger, credentials);
  let app: FastifyInstance;
  try {
    app = await buildWebApp({
      config,
      logger,
      service: client,
      pools: client,
      queues: [queues.vm, queues.system, deliveries.queue],
      readiness: redisReadinessSources(redis, prefix, redisDown),
      addressPools: addressPoolFigures(redis, prefix, allNetworks(config)),
      tenantUsage: tenantUsageReader(redis, prefix),
      readyTokens: redisReadySignals(redis, prefix),
      metrics: options.metrics,
      credentials,
      redisDown,
    });
    await app.listen({ host: config.http.host, port: options.port ?? config.http.port });
  } catch (err) {
    await closeConnections();
    throw err;
  }
  const { port } = app.server.address() as AddressInfo;
  const url = `http://${publicHost(config.http.host)}:${port}`;
  if (config.http.boardWritable && credentials === undefined) {
    logger.warn('http.boardWritable is ignored while http.authDisabled: Bull Board stays read-only, as a writable board needs its users');
  }
  const reached = await firstContact(redis, REDIS_FIRST_CONTACT_MS);
  if (reached) {
    await published.write().catch(() => undefined);
    await webhooks?.write().catch(() => undefined);
  }
  logListening(logger, config, url, credentials !== undefined, reached ? undefined : redisDown());
  return {
    app,
    url,
    close: async () => {
      await app.close();
      await closeConnections();
    },
  };
}

/** Where the API and Bull Board answer and with what auth; a warning when Redis did not answer yet. */
function logListening(logger: Logger, config: Config, url: string, withAuth: boolean, down: RedisDown | undefined): void {
  const redisNote = down === undefined ? '' : `; not ready yet: ${down.message}; /v1 answers 503 until Redis answers`;
  logger[down === undefined ? 'info' : 'warn'](
    {
      api: `${url}/v1`,
      board: `${url}${BOARD_PATH}`,
      apiTokensFile: withAuth ? config.http.apiTokensFile : undefined,
      boardUsersFile: withAuth ? config.http.boardUsersFile : undefined,
    },
    (withAuth
      ? `API at ${url}/v1, its tokens in ${config.http.apiTokensFile}; Bull Board at ${url}${BOARD_PATH}, its user:password in ${config.http.boardUsersFile}`
      : `API at ${url}/v1 and Bull Board at ${url}${BOARD_PATH}, without auth (http.authDisabled)`) + redisNote,
  );
}
