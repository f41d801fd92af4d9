// Which VM job end is which webhook event (SPEC 27), added to the
// delivery queue by the processor before BullMQ records the end: a
// completed create is vm.ready, or vm.updated when it changed a VM of ours
// in place, a completed delete vm.deleted, any VM job that failed for good
// job.failed. Superseded jobs and checks send none.
import type { Job } from 'bullmq';
import { completedBody, failedBody } from '../webhooks/body.js';
import type { JobEnd, WebhookBody, WebhookEvent } from '../webhooks/body.js';
import { deliveryIdFor } from '../queue/webhook-queue.js';
import type { WebhookQueue } from '../queue/webhook-queue.js';

/** What the processor tells of a VM job's end; each resolves once the event is in Redis. */
export interface JobEvents {
  completed(job: Job, result: unknown): Promise<void>;
  /** The job failed on its attempt `job.attemptsMade + 1` and will not be retried. */
  failedForGood(job: Job, reason: string): Promise<void>;
}

const COMPLETED_EVENTS: Readonly<Record<string, Exclude<WebhookEvent, 'job.failed'>>> = { create: 'vm.ready', delete: 'vm.deleted' };

/** A create whose result names fields it changed on a VM configured before (SPEC 13). */
function changedInPlace(result: unknown): boolean {
  const changed = typeof result === 'object' && result !== null ? (result as { changed?: unknown }).changed : undefined;
  return Array.isArray(changed) && changed.length > 0;
}

function isSuperseded(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { superseded?: unknown }).superseded === true;
}

function vmNameOf(job: Job): string {
  const name = (job.data as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

export function webhookEvents(deliveries: Pick<WebhookQueue, 'add'>, now: () => Date = () => new Date()): JobEvents {
  // Stryker disable next-line StringLiteral: a job taken from a queue always has an id; ?? '' is for the type checker
  const end = (job: Job, deliveryId: string): JobEnd => ({ deliveryId, name: vmNameOf(job), jobId: job.id ?? '', job: job.name, occurredAt: now() });
  const add = async (body: WebhookBody): Promise<void> => {
    await deliveries.add({ deliveryId: body.deliveryId, event: body.event, body: JSON.stringify(body) });
  };
  return {
    async completed(job, result) {
      const completed = COMPLETED_EVENTS[job.name];
      if (completed === undefined || isSuperseded(result)) return;
      const event = completed === 'vm.ready' && changedInPlace(result) ? 'vm.updated' : completed;
      await add(completedBody(event, end(job, deliveryIdFor(event, job.id ?? '')), result));
    },
    async failedForGood(job, reason) {
      await add(failedBody(end(job, deliveryIdFor('job.failed', job.id ?? '', job.attemptsMade + 1)), reason));
    },
  };
}
