// Builds the web app on the real Redis with a prefix of its own, known
// credentials files and the real producer client, and removes every key
// of the prefix afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { createUncheckedProvisionerClient, type UncheckedProvisionerClient } from '../../src/client.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { silentLogger, type Logger } from '../../src/log.js';
import { createMetrics, type Metrics } from '../../src/metrics.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { buildWebApp } from '../../src/web/app.js';
import { loadCredentials } from '../../src/web/auth/credentials.js';
import { redisReadinessSources } from '../../src/web/readiness-redis.js';
import { addressPoolFigures } from '../../src/web/address-pool-metrics.js';
import type { NetworkPoolConfig } from '../../src/config/types.js';
import { redisReadySignals } from '../../src/queue/ready-signals.js';
import type { FailedAuthOptions } from '../../src/web/auth/failed-auth.js';
import type { PoolService, TenantCalls, VmService } from '../../src/web/deps.js';
import { DEFAULT_TENANT, type Tenant } from '../../src/tenants/types.js';
import type { JobEventOptions } from '../../src/web/job-event-options.js';
import type { RedisDownProbe } from '../../src/web/redis-down.js';
import { REDIS_URL, deletePrefix, uniquePrefix } from '../support/redis.js';

export interface TestWeb {
  app: FastifyInstance;
  config: Config;
  client: UncheckedProvisionerClient;
  queues: Queues;
  redis: Redis;
  metrics: Metrics;
  prefix: string;
  token: string;
  boardUser: string;
  boardPassword: string;
  close(): Promise<void>;
}

export interface TestWebOptions {
  redisDown?: RedisDownProbe;
  /** What the routes call instead of the client itself: a wrapper that counts or fails calls, delegating the rest; it wraps each tenant's calls too (SPEC 34). */
  service?: (client: UncheckedProvisionerClient) => VmService;
  /** What a tenant's calls become (SPEC 34), after `service`: a fake that answers or throws for the tenant given. */
  tenantCalls?: (calls: TenantCalls, tenant: Tenant) => TenantCalls;
  jobEvents?: Partial<JobEventOptions>;
  /** Config variables (PROXMOX_IMAGES, ...) the test's config is loaded with. */
  env?: Record<string, string>;
  /** Where the app logs; silent by default. */
  logger?: Logger;
  /** How wrong credentials are slowed; a few ms by default, so tests that send many stay quick. */
  failedAuth?: Partial<FailedAuthOptions>;
  /** proxmox.networks (SPEC 29): the address pools /metrics reads. */
  networks?: NetworkPoolConfig[];
  /** GET /v1/pools's source (SPEC 30); the client itself when absent. */
  pools?: PoolService;
  /** Lines of the tokens file after web.token's plain one (a token with its tenant's words, SPEC 34). */
  tokenLines?: readonly string[];
  /** proxmox.clusters (SPEC 32): several clusters; the one-cluster form when absent. */
  clusters?: Record<string, unknown>[];
}

const QUICK_FAILED_AUTH: Partial<FailedAuthOptions> = { firstDelayMs: 1, maxDelayMs: 8 };

/** The tenant of a plain token line: the client's own (no tenant option), as before tenants. */
function isClientsOwn(tenant: Tenant): boolean {
  return tenant.name === DEFAULT_TENANT.name && tenant.scope === DEFAULT_TENANT.scope && Object.keys(tenant.quotas).length === 0;
}

/**
 * The service the routes get: the client, or the test's wrapper of it,
 * which each tenant's calls (asTenant) go through as well. A plain token's
 * calls are the client's own, read at each request, so a test may still
 * replace one of the client's methods as it did before tenants.
 */
function serviceOf(client: UncheckedProvisionerClient, options: TestWebOptions): VmService {
  const { service: wrap, tenantCalls } = options;
  const asTenant = (tenant: Tenant): TenantCalls => {
    const own: TenantCalls = isClientsOwn(tenant) ? client : client.asTenant(tenant);
    const wrapped: TenantCalls = wrap === undefined ? own : { ...own, ...wrap({ ...client, ...own }) };
    return tenantCalls === undefined ? wrapped : tenantCalls(wrapped, tenant);
  };
  return { ...(wrap === undefined ? client : wrap(client)), asTenant };
}

export async function buildTestWeb(httpOverrides: Record<string, unknown> = {}, options: TestWebOptions = {}): Promise<TestWeb> {
  const prefix = uniquePrefix('web');
  const dir = mkdtempSync(join(tmpdir(), 'pvep-web-'));
  const token = `test-token-${randomBytes(12).toString('hex')}`;
  const boardUser = 'ops';
  const boardPassword = `pw-${randomBytes(12).toString('hex')}`;
  writeFileSync(join(dir, 'tokens'), [token, ...(options.tokenLines ?? [])].map((line) => `${line}\n`).join(''), { mode: 0o600 });
  writeFileSync(join(dir, 'users'), `${boardUser}:${boardPassword}\n`, { mode: 0o600 });
  writeFileSync(join(dir, 'fingerprint-key'), `fingerprint-key-${randomBytes(16).toString('hex')}\n`, { mode: 0o600 });
  const config = loadConfig({
    env: options.env ?? {},
    overrides: {
      redis: { url: REDIS_URL, prefix },
      ...(options.networks || options.clusters ? { proxmox: { ...(options.networks ? { networks: options.networks } : {}), ...(options.clusters ? { clusters: options.clusters } : {}) } } : {}),
      http: { apiTokensFile: join(dir, 'tokens'), boardUsersFile: join(dir, 'users'), fingerprintKeyFile: join(dir, 'fingerprint-key'), ...httpOverrides },
    },
  });
  const logger = options.logger ?? silentLogger();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const queues = createQueues(redis, prefix);
  const client = createUncheckedProvisionerClient({ redisUrl: REDIS_URL, prefix, config, fingerprintKeyFile: config.http.fingerprintKeyFile });
  const metrics = createMetrics();
  const app = await buildWebApp({
    config,
    logger,
    service: serviceOf(client, options),
    pools: options.pools ?? client,
    queues: [queues.vm, queues.system],
    readiness: redisReadinessSources(redis, prefix, options.redisDown),
    addressPools: addressPoolFigures(redis, prefix, config.proxmox.networks),
    readyTokens: redisReadySignals(redis, prefix),
    metrics,
    credentials: await loadCredentials(config, logger),
    ...(options.redisDown ? { redisDown: options.redisDown } : {}),
    ...(options.jobEvents ? { jobEvents: options.jobEvents } : {}),
    failedAuth: options.failedAuth ?? QUICK_FAILED_AUTH,
  });
  return {
    app,
    config,
    client,
    queues,
    redis,
    metrics,
    prefix,
    token,
    boardUser,
    boardPassword,
    async close() {
      await app.close();
      await client.close();
      await queues.close();
      await deletePrefix(redis, prefix);
      redis.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function basicHeader(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** Listens on a free loopback port and gives the base URL (http://127.0.0.1:PORT), for tests that need a real socket. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening on a port');
  return `http://127.0.0.1:${address.port}`;
}
