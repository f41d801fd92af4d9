// /healthz (the process answers) and /readyz (it can do its work), open
// to anyone so orchestrators can probe them (SPEC 6).
import type { FastifyInstance } from 'fastify';
import { checkReadiness, type ReadinessSources } from '../readiness.js';

// Probes come every few seconds: their request lines are logged at warn only.
const QUIET = { logLevel: 'warn' } as const;

export function probeRoutes(app: FastifyInstance, sources: ReadinessSources): void {
  app.get('/healthz', QUIET, () => ({ status: 'ok' }));
  app.get('/readyz', QUIET, async (_request, reply) => {
    const report = await checkReadiness(sources);
    return reply.code(report.ready ? 200 : 503).send(report);
  });
}
