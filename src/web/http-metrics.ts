// HTTP API metrics (SPEC 9, 27): how long each request took, by route
// template, method and status. The label is the template fastify matched
// (`/v1/vms/:name`), never the raw URL: VM names and job ids in the
// label would grow the series without bound.
import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';

/** The route label of a request that matched no route (a 404 from the not-found handler). */
export const UNMATCHED_ROUTE = 'unmatched';

export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Adds the request histogram to `registry` and an onResponse hook that fills it. Call before routes are added. */
export function observeHttpRequests(app: FastifyInstance, registry: Registry): Histogram<'route' | 'method' | 'status'> {
  const duration = new Histogram({
    name: 'pvep_http_request_duration_seconds',
    help: 'HTTP requests the web process answered, by route template, method and status, and how long each took.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
    duration.observe({ route, method: request.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  return duration;
}
