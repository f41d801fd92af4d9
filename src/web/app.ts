// The web process's fastify app (SPEC 6, 9): /v1 behind bearer tokens
// but a phone-home guest's /v1/ready/<token> (SPEC 29),
// Bull Board behind basic auth, open /healthz and /readyz, /metrics and
// /readyz's checks behind a token unless http.metricsAuth is false. Built from its deps, not
// listening: server.ts listens, tests use inject or listen themselves.
// Tenants (SPEC 34): each request speaks for its token's tenant; a `read`
// token only GETs, and /metrics and /readyz's checks want an admin token.
import fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginCallback, type onRequestAsyncHookHandler } from 'fastify';
import { Registry } from 'prom-client';
import { clustersOf, isMultiCluster } from '../config/clusters.js';
import { limitsFromConfig } from '../job-table/schema.js';
import { boundConnections, listenerLimitsOf } from '../listener-limits.js';
import { bearerAuth } from './auth/bearer.js';
import { decorateRequestTenant } from './auth/request-tenant.js';
import { adminOnly, refuseWritesOfReadScope } from './auth/scope.js';
import { configuredTenants } from '../tenants/token-lines.js';
import { registerTenantGauges } from './tenant-metrics.js';
import { createHealthGate } from './create-health.js';
import { FAILED_AUTH_DEFAULTS, FailedAuth } from './auth/failed-auth.js';
import { mountBoard } from './board.js';
import { bodyLimitBytes } from './body-limit.js';
import type { WebDeps } from './deps.js';
import { errorHandler, notFound } from './error-handler.js';
import { observeHttpRequests } from './http-metrics.js';
import { registerNodeHealthGauges } from './node-health-metrics.js';
import { registerAddressPoolGauge } from './address-pool-metrics.js';
import { registerPoolGauges } from './pool-metrics.js';
import { sharedFor } from './metrics-cache.js';
import { buildOpenApiDocument } from './openapi.js';
import { clusterRoutes } from './routes/clusters.js';
import { imageRoutes } from './routes/images.js';
import { poolRoutes } from './routes/pools.js';
import { JOB_EVENT_DEFAULTS } from './job-event-options.js';
import { jobEventRoutes } from './routes/job-events.js';
import { jobRoutes } from './routes/jobs.js';
import { metricsRoute } from './routes/metrics.js';
import { probeRoutes } from './routes/probes.js';
import { readyRoute } from './routes/ready.js';
import { refuseUnknownQuery } from './query-keys.js';
import { tenantRoutes } from './routes/tenants.js';
import { vmRoutes } from './routes/vms.js';
import { redisNeverDown, refuseWhileRedisDown, type RedisDownProbe } from './redis-down.js';
import { boundLargeBodies } from './large-bodies.js';
import { closeAfterRefusal, fastifyTimeoutOptions, refuseUnknownPathsUnread } from './listener.js';

export async function buildWebApp(deps: WebDeps): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = deps.logger.child({ component: 'web' });
  const limits = listenerLimitsOf(deps.config.http);
  const app = fastify({
    loggerInstance: logger,
    // The largest valid job fits; anything larger is refused before parsing.
    bodyLimit: bodyLimitBytes(limitsFromConfig(deps.config)),
    ...fastifyTimeoutOptions(limits),
    // fastify's default (100) answers a long :name with a bare 414; the
    // validator should name the field instead, like for any bad name.
    routerOptions: { maxParamLength: 8192 },
  });
  boundConnections(app.server, limits, deps.logger, 'web');
  closeAfterRefusal(app);
  refuseUnknownPathsUnread(app, notFound);
  boundLargeBodies(app);
  const redisDown = deps.redisDown ?? redisNeverDown;
  // What only the web process knows (its requests, the stored node health):
  // a registry of this app's own, served by /metrics with the process's.
  const webRegistry = new Registry();
  observeHttpRequests(app, webRegistry);
  // The Redis figures of /metrics are read at most once per http.metricsCacheSeconds (SPEC 24).
  const redisFiguresMs = deps.config.http.metricsCacheSeconds * 1000;
  // Node series name their cluster only in the several-clusters form (SPEC 32): the one-cluster form's stay as they were.
  registerNodeHealthGauges(webRegistry, sharedFor(redisFiguresMs, () => deps.readiness.lastHealth()), redisDown, { all: clustersOf(deps.config), labelled: isMultiCluster(deps.config) });
  registerAddressPoolGauge(webRegistry, deps.addressPools && sharedFor(redisFiguresMs, deps.addressPools), redisDown);
  const pools = deps.pools;
  registerPoolGauges(webRegistry, pools && sharedFor(redisFiguresMs, () => pools.listPools()), redisDown);
  registerTenantGauges(webRegistry, configuredTenants(deps.credentials?.apiTokens ?? []), deps.tenantUsage && sharedFor(redisFiguresMs, deps.tenantUsage), redisDown);
  app.setErrorHandler(errorHandler(redisDown));
  app.setNotFoundHandler(notFound);
  decorateRequestTenant(app);

  const failedAuth = new FailedAuth(webRegistry, deps.logger, { ...FAILED_AUTH_DEFAULTS, ...deps.failedAuth });
  const tokenGuard = deps.credentials === undefined ? undefined : bearerAuth(deps.credentials.apiTokens, failedAuth);
  const openApi = buildOpenApiDocument(deps.config);

  // What names workers, hosts, nodes and images: /metrics and the checks of /readyz, an admin token's.
  const operationsGuard = deps.config.http.metricsAuth && tokenGuard !== undefined ? adminOnly(tokenGuard) : undefined;
  // Our routes take only the query parameters each declares (query-keys.ts); Bull Board's, mounted apart, are its own.
  await app.register(async (ours) => {
    ours.addHook('preValidation', refuseUnknownQuery);
    probeRoutes(ours, deps.readiness, redisDown, operationsGuard, isMultiCluster(deps.config) ? clustersOf(deps.config) : undefined);
    metricsRoute(ours, [deps.metrics.registry, webRegistry], deps.queues, redisDown, { queueFiguresMs: redisFiguresMs, guard: operationsGuard });
    // The document holds no data, and a client generator fetches it with no token.
    ours.get('/v1/openapi.json', () => openApi);
    // A phone-home guest has its token, no API token (SPEC 29).
    await ours.register(readyRoute(deps.readyTokens, deps.logger.child({ component: 'web' }), refuseWhileRedisDown(redisDown)));
    await ours.register(v1Routes(deps, redisDown, tokenGuard), { prefix: '/v1' });
  });

  await mountBoard(app, deps.queues, { users: deps.credentials?.boardUsers, writable: deps.config.http.boardWritable, redisDown, failures: failedAuth });
  return app;
}

/** The /v1 routes but the document, behind the bearer token when auth is on. */
function v1Routes(deps: WebDeps, redisDown: RedisDownProbe, tokenGuard: onRequestAsyncHookHandler | undefined): FastifyPluginCallback {
  return (v1, _options, done) => {
    if (tokenGuard !== undefined) v1.addHook('onRequest', tokenGuard);
    v1.addHook('onRequest', refuseWritesOfReadScope);
    // Every other /v1 route reads or writes Redis: 503 while it is down (SPEC 24).
    void v1.register((needsRedis, _scopeOptions, scopeDone) => {
      needsRedis.addHook('onRequest', refuseWhileRedisDown(redisDown));
      vmRoutes(needsRedis, deps.service, createHealthGate(deps.config, () => deps.readiness.lastHealth()), (pool) => deps.metrics.poolMissed(pool), (tenant, reason) => deps.metrics.tenantRefused(tenant, reason));
      jobRoutes(needsRedis, deps.service, deps.config.http.maxJobWaiters);
      imageRoutes(needsRedis, deps.config, () => deps.readiness.lastHealth());
      clusterRoutes(needsRedis, deps.config, () => deps.readiness.lastHealth());
      poolRoutes(needsRedis, deps.pools);
      tenantRoutes(needsRedis, deps.service, configuredTenants(deps.credentials?.apiTokens ?? []));
      jobEventRoutes(needsRedis, deps.service, { ...JOB_EVENT_DEFAULTS, maxSeconds: deps.config.http.eventStreamMaxSeconds, ...deps.jobEvents });
      scopeDone();
    });
    done();
  };
}
