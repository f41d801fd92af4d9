// /healthz (the process answers) and /readyz (it can do its work), open
// to anyone so orchestrators can probe them (SPEC 6). /healthz needs no
// Redis: the process lives through an outage (SPEC 24). Behind a detail
// guard (http.metricsAuth), /readyz tells anyone ready or not and why in
// words; its checks, which name workers, hosts and nodes, only a request
// with a token the guard accepts (a wrong one is its 401, one not admin a 403).
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { checkReadiness, type ReadinessReport, type ReadinessSources } from '../readiness.js';
import type { RedisDownProbe } from '../redis-down.js';

// Probes come every few seconds: their request lines are logged at warn only.
const QUIET = { logLevel: 'warn' } as const;

const DETAIL_HINT = 'each check (workers, hosts, nodes) is shown to a request with "Authorization: Bearer <token>", an admin token from http.apiTokensFile';

function withoutDetail(report: ReadinessReport): { ready: boolean; reason?: string; details: string } {
  return report.summary === undefined ? { ready: report.ready, details: DETAIL_HINT } : { ready: report.ready, reason: report.summary, details: DETAIL_HINT };
}

export function probeRoutes(app: FastifyInstance, sources: ReadinessSources, redisDown: RedisDownProbe, detailGuard?: onRequestAsyncHookHandler): void {
  app.get('/healthz', QUIET, () => ({ status: 'ok' }));
  const checkToken: onRequestAsyncHookHandler = async (request, reply) => {
    if (detailGuard !== undefined && request.headers.authorization !== undefined) await detailGuard.call(app, request, reply);
  };
  app.get('/readyz', { ...QUIET, onRequest: [checkToken] }, async (request, reply) => {
    const report = await checkReadiness(sources);
    const down = redisDown();
    if (down !== undefined) reply.header('Retry-After', String(down.retryAfterSeconds));
    const detail = detailGuard === undefined || request.headers.authorization !== undefined;
    return reply.code(report.ready ? 200 : 503).send(detail ? report : withoutDetail(report));
  });
}
