// Which VM job end is which webhook event (SPEC 27), added to the
// delivery queue by the processor before BullMQ records the end: a
// completed create is vm.ready, or vm.updated when it changed a VM of ours
// in place, a completed delete vm.deleted, any VM job that failed for good
// job.failed. Superseded jobs and checks send none. A delete or stop a
// lease's expiry added (its data has expiredAt) is also vm.expired; a
// lease's warning sends vm.expiring (SPEC 31). A warm pool's own VMs
// (SPEC 30: `pvep-pool-*`, made and drained by the refill) send none: they
// are no caller's, and a claimed one is the claimer's create's vm.ready.
// Each event goes to webhooks.url when set (the operator's: every event),
// and to its tenant's URL when that tenant has one (SPEC 34): the job
// data's `tenant`, absent the default tenant; never to another tenant.
import type { Job } from 'bullmq';
import { POOL_MEMBER_PREFIX } from '../pools/types.js';
import { completedBody, failedBody } from '../webhooks/body.js';
import type { JobEnd, WebhookBody } from '../webhooks/body.js';
import { deliveryIdFor, tenantDeliveryIdFor } from '../queue/webhook-queue.js';
import type { TenantUrlOf } from '../webhooks/tenant-urls.js';
import { DEFAULT_TENANT_NAME, ownerOf } from '../tenants/types.js';
import type { WebhookQueue } from '../queue/webhook-queue.js';

/** What the processor tells of a VM job's end; each resolves once the event is in Redis. */
export interface JobEvents {
  completed(job: Job, result: unknown): Promise<void>;
  /** The job failed on its attempt `job.attemptsMade + 1` and will not be retried. */
  failedForGood(job: Job, reason: string): Promise<void>;
  /** vm.expiring of a lease version (SPEC 31), from its warning job: one delivery id per warning job; `tenant` owns the name (absent: the default tenant). */
  expiring(name: string, warningJobId: string, lease: { expiresAt: string; version: number; onExpiry: string }, tenant?: string): Promise<void>;
}

/** Where events go: webhooks.url (`operator`, when set) and each tenant's own URL, if any. */
export interface WebhookRoutes {
  operator: boolean;
  tenantUrl: TenantUrlOf;
}

/** webhooks.url alone, as before tenants. */
export const OPERATOR_ONLY: WebhookRoutes = { operator: true, tenantUrl: () => Promise.resolve(undefined) };

/** The tenant a VM job's data names (SPEC 34); absent, the default tenant. */
function tenantOf(job: Job): string {
  return ownerOf(job.data as { tenant?: unknown } | undefined);
}

/** The expiresAt a lease's expiry put on the delete or stop it added (SPEC 31); undefined for any other job. */
export function expiredAtOf(job: Job): string | undefined {
  const expiredAt = (job.data as { expiredAt?: unknown } | undefined)?.expiredAt;
  return (job.name === 'delete' || job.name === 'stop') && typeof expiredAt === 'string' ? expiredAt : undefined;
}

const COMPLETED_EVENTS: Readonly<Record<string, 'vm.ready' | 'vm.deleted'>> = { create: 'vm.ready', delete: 'vm.deleted' };

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

export function webhookEvents(deliveries: Pick<WebhookQueue, 'add'>, now: () => Date = () => new Date(), routes: WebhookRoutes = OPERATOR_ONLY): JobEvents {
  // Stryker disable next-line StringLiteral: a job taken from a queue always has an id; ?? '' is for the type checker
  const end = (job: Job, deliveryId: string): JobEnd => ({ deliveryId, name: vmNameOf(job), jobId: job.id ?? '', job: job.name, occurredAt: now() });
  const toTenant = async (body: WebhookBody, tenant: string): Promise<void> => {
    const url = await routes.tenantUrl(tenant);
    if (url === undefined) return;
    // The same event under a delivery id of its own, so each receiver's copy is retried apart.
    const copy = { ...body, deliveryId: tenantDeliveryIdFor(body.deliveryId, tenant) };
    await deliveries.add({ deliveryId: copy.deliveryId, event: copy.event, body: JSON.stringify(copy), url, tenant });
  };
  const sendOf = (tenant: string) => async (body: WebhookBody): Promise<void> => {
    if (routes.operator) await deliveries.add({ deliveryId: body.deliveryId, event: body.event, body: JSON.stringify(body) });
    await toTenant(body, tenant);
  };
  return {
    async completed(job, result) {
      if (isSuperseded(result) || vmNameOf(job).startsWith(POOL_MEMBER_PREFIX)) return;
      const add = sendOf(tenantOf(job));
      const expiredAt = expiredAtOf(job);
      if (expiredAt !== undefined) {
        const expired = { ...(typeof result === 'object' && result !== null ? result : {}), expiresAt: expiredAt, onExpiry: job.name };
        await add(completedBody('vm.expired', end(job, deliveryIdFor('vm.expired', job.id ?? '')), expired));
      }
      const completed = COMPLETED_EVENTS[job.name];
      if (completed === undefined) return;
      const event = completed === 'vm.ready' && changedInPlace(result) ? 'vm.updated' : completed;
      await add(completedBody(event, end(job, deliveryIdFor(event, job.id ?? '')), result));
    },
    async expiring(name, warningJobId, lease, tenant = DEFAULT_TENANT_NAME) {
      const deliveryId = deliveryIdFor('vm.expiring', warningJobId);
      await sendOf(tenant)(completedBody('vm.expiring', { deliveryId, name, jobId: warningJobId, job: 'lease-warning', occurredAt: now() }, lease));
    },
    async failedForGood(job, reason) {
      if (vmNameOf(job).startsWith(POOL_MEMBER_PREFIX)) return;
      await sendOf(tenantOf(job))(failedBody(end(job, deliveryIdFor('job.failed', job.id ?? '', job.attemptsMade + 1)), reason));
    },
  };
}
