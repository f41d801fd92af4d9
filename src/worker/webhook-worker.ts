// The webhook delivery worker (SPEC 27): takes deliveries from their own
// queue and POSTs them, signed; a failed POST throws, so BullMQ retries
// it with exponential backoff (webhooks.attempts, webhooks.backoffMs).
// VM jobs never wait on it: they only add the delivery. A delivery cut
// off by a crash is taken over as stalled after one lock TTL and sent
// again with the same body and delivery id. A tenant's copy (SPEC 34)
// goes to the URL its data carries, signed with that tenant's own key.
import { UnrecoverableError, Worker } from 'bullmq';
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
import { tenantWebhookKey } from '../webhooks/tenant-key.js';

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

/**
 * With webhooks.url empty, the secret only tenants' webhooks need (SPEC
 * 34): read when webhooks.secretFile holds a usable one; else why not, and
 * tenants' URLs get nothing (webhook-routes.ts warns when one is there).
 */
export function readOptionalWebhookSecret(config: Pick<Config, 'webhooks'>): { secret: string } | { problem: string } {
  try {
    return { secret: readWebhookSecret(config) };
  } catch (err) {
    if (err instanceof ConfigError) return { problem: err.message.replace(/ \(it is required while webhooks\.url is set\)$/, '') };
    throw err;
  }
}

/** Where a delivery goes and its signing key: a tenant's copy to its URL under its key; the operator's to webhooks.url under the secret. */
function targetOf(delivery: Delivery, url: string, secret: string): { url: string; key: string; receiver: string } {
  if (delivery.url !== undefined && delivery.tenant !== undefined) {
    return { url: delivery.url, key: tenantWebhookKey(secret, delivery.tenant), receiver: `tenant ${delivery.tenant}'s webhook URL` };
  }
  // Added while webhooks.url was set, taken by a worker that has none: nowhere to send it, and no retry will find one.
  if (url === '') throw new UnrecoverableError('webhooks.url is not set: this delivery has nowhere to go');
  return { url, key: secret, receiver: 'webhooks.url' };
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
      const target = targetOf(job.data, url, secret);
      const status = await sendDelivery(job.data, { url: target.url, secret: target.key, receiver: target.receiver, timeoutMs, ...(signal ? { signal } : {}) });
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
