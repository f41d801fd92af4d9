// GET /metrics: our prom-client registries (the process's, the web app's),
// then BullMQ's own queue metrics, merged so each metric family is
// declared once (SPEC 9). While Redis is down the queue metrics are left
// out and ours still answer, since an outage is when they are wanted
// (SPEC 24).
import type { Queue } from 'bullmq';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import { Registry } from 'prom-client';
import { mergeExpositions } from '../prometheus-text.js';
import type { RedisDownProbe } from '../redis-down.js';

export function metricsRoute(app: FastifyInstance, registries: readonly Registry[], queues: readonly Queue[], redisDown: RedisDownProbe, guard?: onRequestAsyncHookHandler): void {
  app.get('/metrics', { logLevel: 'warn', onRequest: guard ? [guard] : [] }, async (_request, reply) => {
    const fromQueues = redisDown() === undefined ? queues : [];
    const texts = await Promise.all([...registries.map((r) => r.metrics()), ...fromQueues.map((q) => q.exportPrometheusMetrics())]);
    return reply.header('Content-Type', Registry.PROMETHEUS_CONTENT_TYPE).send(mergeExpositions(texts));
  });
}
