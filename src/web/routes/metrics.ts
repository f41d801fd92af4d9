// GET /metrics: our prom-client registries (the process's, the web app's),
// then BullMQ's own queue metrics, merged so each metric family is
// declared once (SPEC 9). While Redis is down the queue metrics are left
// out and ours still answer, since an outage is when they are wanted
// (SPEC 24). The queue metrics are read at most once per `queueFiguresMs`
// and shared by the scrapes meanwhile (metrics-cache.ts).
import type { Queue } from 'bullmq';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Registry } from 'prom-client';
import { sharedFor } from '../metrics-cache.js';
import { mergeExpositions } from '../prometheus-text.js';
import type { RedisDownProbe } from '../redis-down.js';

export interface MetricsRouteOptions {
  queueFiguresMs: number;
  guard?: onRequestAsyncHookHandler | undefined;
}

export function metricsRoute(app: FastifyInstance, registries: readonly Registry[], queues: readonly Queue[], redisDown: RedisDownProbe, options: MetricsRouteOptions): void {
  const queueTexts = sharedFor(options.queueFiguresMs, () => Promise.all(queues.map((q) => q.exportPrometheusMetrics())));
  app.get('/metrics', { logLevel: 'warn', onRequest: options.guard ? [options.guard] : [] }, async (_request, reply) => {
    const [ours, fromQueues] = await Promise.all([Promise.all(registries.map((r) => r.metrics())), redisDown() === undefined ? queueTexts() : []]);
    return reply.header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE).send(mergeExpositions([...ours, ...fromQueues]));
  });
}
