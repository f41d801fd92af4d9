// The webhook delivery worker (SPEC 27): takes deliveries from their own
// queue and POSTs them, signed; a failed POST throws, so BullMQ retries
// it with exponential backoff (webhooks.attempts, webhooks.backoffMs).
// VM jobs never wait on it: they only add the delivery. A delivery cut
// off by a crash is taken over as stalled after one lock TTL and sent
// again with the same body and delivery id.
import { Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { ConfigError } from '../config/index.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import type { WebhookMetrics } from '../metrics.js';
import { SecretFileError, readSecretFileSync } from '../secrets/read.js';
import { weakSecretProblem } from '../secrets/strength.js';
import type { RedisClient } from '../queue/connection.js';
import { reportRedisError } from '../queue/connection.js';
import { WORKER_METRICS } from '../queue/queues.js';
import { keyPrefixOf } from '../queue/redis-target.js';
import { WEBHOOK_QUEUE } from '../queue/webhook-queue.js';
import { sendDelivery } from '../webhooks/send.js';
import type { Delivery } from '../webhooks/send.js';

/** The secret of webhooks.secretFile, registered for redaction; a start-up error naming the key when it cannot be read or is under 128 bits. */
export function readWebhookSecret(config: Pick<Config, 'webhooks'>): string {
  let secret: string;
  try {
    secret = readSecretFileSync(config.webhooks.secretFile);
  } catch (err) {
    if (err instanceof SecretFileError) throw new ConfigError(`invalid configuration: webhooks.secretFile: ${err.message} (it is required while webhooks.url is set)`);
    throw err;
  }
  const weak = weakSecretProblem(secret);
  if (weak !== undefined) throw new ConfigError(`invalid configuration: webhooks.secretFile: ${config.webhooks.secretFile} ${weak}`);
  return secret;
}

export interface WebhookWorkerOptions {
  config: Config;
  connection: RedisClient;
  secret: string;
  logger: Logger;
  metrics?: WebhookMetrics;
}

export interface WebhookWorker {
  readonly worker: Worker;
  /** Aborts the POSTs under way (shutdown past its grace period); they are sent again later. */
  cancelAll(reason: string): void;
}

export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const { config, connection, secret, logger, metrics } = options;
  const { url, timeoutMs, attempts, concurrency } = config.webhooks;
  const deliver = async (job: Job<Delivery>, _token?: string, signal?: AbortSignal): Promise<{ status: number }> => {
    const started = Date.now();
    const seconds = (): number => (Date.now() - started) / 1000;
    try {
      const status = await sendDelivery(job.data, { url, secret, timeoutMs, ...(signal ? { signal } : {}) });
      metrics?.webhookDelivered(job.data.event, 'delivered', seconds());
      return { status };
    } catch (err) {
      // The delivery's own attempts: webhooks.attempts may have changed since it was added.
      metrics?.webhookDelivered(job.data.event, job.attemptsMade + 1 >= (job.opts.attempts ?? attempts) ? 'failed' : 'retried', seconds());
      throw err;
    }
  };
  const worker = new Worker<Delivery>(WEBHOOK_QUEUE, deliver, {
    connection,
    // The queue's prefix, under the hash tag {redis.prefix} on a Cluster (SPEC 25).
    prefix: keyPrefixOf(config.redis.prefix, config.redis),
    concurrency,
    lockDuration: config.budgets.lockTtlMs,
    stalledInterval: config.budgets.lockTtlMs,
    maxStalledCount: attempts,
    metrics: WORKER_METRICS,
  });
  worker.on('error', (err) => reportRedisError(connection, err, `worker ${worker.name}`, logger));
  worker.on('failed', (job, err) =>
    logger.warn({ deliveryId: job?.id, event: job?.data.event, attempt: job?.attemptsMade, reason: err.message }, 'webhook delivery attempt failed'),
  );
  logger.info({ concurrency }, 'webhook deliveries started');
  return { worker, cancelAll: (reason) => worker.cancelAllJobs(reason) };
}
