// /healthz (the process answers) and /readyz (it can do its work), open
// to anyone so orchestrators can probe them (SPEC 6). /healthz needs no
// Redis: the process lives through an outage (SPEC 24). Behind a detail
// guard (http.metricsAuth), /readyz tells anyone ready or not and why in
// words; its checks, which name workers, hosts and nodes, only a request
// with a token the guard accepts (a wrong one is its 401, one not admin a 403).
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { ClusterConfig } from '../../config/types.js';
import { checkReadiness, type ReadinessReport, type ReadinessSources } from '../readiness.js';
import type { RedisDownProbe } from '../redis-down.js';

// Probes come every few seconds: their request lines are logged at warn only.
const QUIET = { logLevel: 'warn' } as const;

const DETAIL_HINT = 'each check (workers, hosts, nodes) is shown to a request with "Authorization: Bearer <token>", an admin token from http.apiTokensFile';

function withoutDetail(report: ReadinessReport): { ready: boolean; reason?: string; warning?: string; details: string } {
  return {
    ready: report.ready,
    ...(report.summary === undefined ? {} : { reason: report.summary }),
    // How many Proxmox clusters are away (SPEC 32), naming none.
    ...(report.warningSummary === undefined ? {} : { warning: report.warningSummary }),
    details: DETAIL_HINT,
  };
}

/** `clusters`: the configured clusters in the several-clusters form (SPEC 32), whose away ones /readyz names; absent in the one-cluster form. */
export function probeRoutes(app: FastifyInstance, sources: ReadinessSources, redisDown: RedisDownProbe, detailGuard?: onRequestAsyncHookHandler, clusters?: readonly Pick<ClusterConfig, 'name'>[]): void {
  app.get('/healthz', QUIET, () => ({ status: 'ok' }));
  const checkToken: onRequestAsyncHookHandler = async (request, reply) => {
    if (detailGuard !== undefined && request.headers.authorization !== undefined) await detailGuard.call(app, request, reply);
  };
  app.get('/readyz', { ...QUIET, onRequest: [checkToken] }, async (request, reply) => {
    const report = await checkReadiness(sources, clusters);
    const down = redisDown();
    if (down !== undefined) reply.header('Retry-After', String(down.retryAfterSeconds));
    const detail = detailGuard === undefined || request.headers.authorization !== undefined;
    return reply.code(report.ready ? 200 : 503).send(detail ? report : withoutDetail(report));
  });
}
