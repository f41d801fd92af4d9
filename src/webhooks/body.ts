// What a webhook says (SPEC 27): one event of one VM job, as the JSON
// body the receiver gets. Built from the job's name, id, VM name and its
// result or error only, never from its data: userData and networkConfig
// never reach a body, and the error text is redacted once more.
import { redactSecrets } from '../secrets/redact.js';

export const WEBHOOK_EVENTS = ['vm.ready', 'vm.updated', 'vm.deleted', 'job.failed', 'vm.expiring', 'vm.expired'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface WebhookBody {
  /** Unique per event, the same on every redelivery of it. */
  deliveryId: string;
  event: WebhookEvent;
  /** The VM's name (the job's `name`). */
  name: string;
  jobId: string;
  /** The job's name: create, delete, stop; lease-warning for vm.expiring. */
  job: string;
  /** When the event happened (the job ended), ISO 8601. */
  occurredAt: string;
  /**
   * vm.ready: the create's result; vm.updated: it with `changed`; vm.deleted: the delete's; job.failed: { error };
   * vm.expiring: the lease (`expiresAt`, `version`, `onExpiry`); vm.expired: the lease's `expiresAt`, its `onExpiry`
   * and the delete's or stop's result (SPEC 31).
   */
  result: Record<string, unknown>;
}

/** The result fields a body carries, per event: what a backend needs, and nothing a later result field could leak. */
const READY_FIELDS = ['providerId', 'vmid', 'node', 'uid', 'state', 'address', 'createdAt'];
const RESULT_FIELDS: Record<Exclude<WebhookEvent, 'job.failed'>, readonly string[]> = {
  'vm.ready': READY_FIELDS,
  // An in-place change (SPEC 2, 13): the VM as vm.ready tells it, and the create fields it changed.
  'vm.updated': [...READY_FIELDS, 'changed'],
  'vm.deleted': ['deleted', 'vmid', 'seedsDeleted'],
  'vm.expiring': ['expiresAt', 'version', 'onExpiry'],
  'vm.expired': ['expiresAt', 'onExpiry', 'deleted', 'stopped', 'vmid', 'node', 'seedsDeleted'],
};

function pick(result: unknown, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof result !== 'object' || result === null) return out;
  for (const field of fields) {
    const value = (result as Record<string, unknown>)[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

export interface JobEnd {
  deliveryId: string;
  name: string;
  jobId: string;
  job: string;
  occurredAt: Date;
}

/** The body of a completed job's event. */
export function completedBody(event: Exclude<WebhookEvent, 'job.failed'>, end: JobEnd, result: unknown): WebhookBody {
  return { ...bodyHead(event, end), result: pick(result, RESULT_FIELDS[event]) };
}

/** The body of a job that failed for good: its reason, redacted. */
export function failedBody(end: JobEnd, error: string): WebhookBody {
  return { ...bodyHead('job.failed', end), result: { error: redactSecrets(error) } };
}

function bodyHead(event: WebhookEvent, end: JobEnd): Omit<WebhookBody, 'result'> {
  return { deliveryId: end.deliveryId, event, name: end.name, jobId: end.jobId, job: end.job, occurredAt: end.occurredAt.toISOString() };
}
