// The webhook deliveries' own queue (SPEC 27), and the one place that
// adds to it: a delivery is not a caller job (no schema in the job table,
// no API, no CLI), so it does not go through the job door
// (src/queue/enqueue.ts); test/unit/one-door.test.ts allows this module
// alone besides the door. Each delivery's job id is its delivery id, made
// from the VM job and the event, so a VM job run twice (a stall, an
// attempt that failed after its event was added) adds its event once.
import { Queue } from 'bullmq';
import type { ConnectionOptions, Job } from 'bullmq';
import type { Config } from '../config/types.js';
import type { WebhookEvent } from '../webhooks/body.js';
import type { Delivery } from '../webhooks/send.js';
import { reportRedisError } from './connection.js';
import { keepJobs } from './queues.js';

export const WEBHOOK_QUEUE = 'webhooks';

/**
 * The delivery id of one event of one VM job. A create or delete
 * completes once; a job.failed also names the attempt it failed on, as a
 * failed job can be retried (the door's ensure) and fail for good again.
 */
export function deliveryIdFor(event: WebhookEvent, vmJobId: string, attempt?: number): string {
  return attempt === undefined ? `${event}-${vmJobId}` : `${event}-${vmJobId}-attempt-${attempt}`;
}

/** The delivery id of a tenant's copy of an event (SPEC 34): the operator's with the tenant added. */
export function tenantDeliveryIdFor(deliveryId: string, tenant: string): string {
  return `${deliveryId}-tenant-${tenant}`;
}

export interface WebhookQueue {
  readonly queue: Queue;
  /** Adds the delivery unless one with its id is already kept; resolves once Redis has it. */
  add(delivery: Delivery): Promise<Job>;
  close(): Promise<void>;
}

export function createWebhookQueue(connection: ConnectionOptions, prefix: string, config: Pick<Config, 'webhooks' | 'jobs'>): WebhookQueue {
  const queue = new Queue(WEBHOOK_QUEUE, { connection, prefix });
  queue.on('error', (err) => reportRedisError(connection, err, `queue ${queue.name}`));
  const { webhooks, jobs } = config;
  return {
    queue,
    add: (delivery) =>
      queue.add(delivery.event, delivery, {
        jobId: delivery.deliveryId,
        attempts: webhooks.attempts,
        backoff: { type: 'exponential', delay: webhooks.backoffMs, jitter: 0.2 },
        removeOnComplete: keepJobs(jobs.keepCompletedCount, jobs.keepCompletedSeconds),
        removeOnFail: keepJobs(jobs.keepFailedCount, jobs.keepFailedSeconds),
      }),
    close: () => queue.close(),
  };
}
