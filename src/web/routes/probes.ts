// /healthz (the process answers) and /readyz (it can do its work), open
// to anyone so orchestrators can probe them (SPEC 6). /healthz needs no
// Redis: the process lives through an outage (SPEC 24).
import type { FastifyInstance } from 'fastify';
import { checkReadiness, type ReadinessSources } from '../readiness.js';
import type { RedisDownProbe } from '../redis-down.js';

// Probes come every few seconds: their request lines are logged at warn only.
const QUIET = { logLevel: 'warn' } as const;

export function probeRoutes(app: FastifyInstance, sources: ReadinessSources, redisDown: RedisDownProbe): void {
  app.get('/healthz', QUIET, () => ({ status: 'ok' }));
  app.get('/readyz', QUIET, async (_request, reply) => {
    const report = await checkReadiness(sources);
    const down = redisDown();
    if (down !== undefined) reply.header('Retry-After', String(down.retryAfterSeconds));
    return reply.code(report.ready ? 200 : 503).send(report);
  });
}
