// GET /metrics: our prom-client registry, then BullMQ's own queue
// metrics, merged so each metric family is declared once (SPEC 9). While
// Redis is down the queue metrics are left out and ours still answer,
// since an outage is when they are wanted (SPEC 24).
import type { Queue } from 'bullmq';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { Metrics } from '../../metrics.js';
import { mergeExpositions } from '../prometheus-text.js';
import type { RedisDownProbe } from '../redis-down.js';

export function metricsRoute(app: FastifyInstance, metrics: Metrics, queues: readonly Queue[], redisDown: RedisDownProbe, guard?: onRequestAsyncHookHandler): void {
  app.get('/metrics', { logLevel: 'warn', onRequest: guard ? [guard] : [] }, async (_request, reply) => {
    const fromQueues = redisDown() === undefined ? queues : [];
    const [ours, ...queueTexts] = await Promise.all([metrics.registry.metrics(), ...fromQueues.map((q) => q.exportPrometheusMetrics())]);
    return reply.header('Content-Type', metrics.registry.contentType).send(mergeExpositions([ours ?? '', ...queueTexts]));
  });
}
