// GET /metrics: our prom-client registry, then BullMQ's own queue
// metrics, merged so each metric family is declared once (SPEC 9).
import type { Queue } from 'bullmq';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { Metrics } from '../../metrics.js';
import { mergeExpositions } from '../prometheus-text.js';

export function metricsRoute(app: FastifyInstance, metrics: Metrics, queues: readonly Queue[], guard?: onRequestAsyncHookHandler): void {
  app.get('/metrics', { logLevel: 'warn', onRequest: guard ? [guard] : [] }, async (_request, reply) => {
    const [ours, ...queueTexts] = await Promise.all([metrics.registry.metrics(), ...queues.map((q) => q.exportPrometheusMetrics())]);
    return reply.header('Content-Type', metrics.registry.contentType).send(mergeExpositions([ours ?? '', ...queueTexts]));
  });
}
