// What a caller sees of a job (SPEC 6): its state, progress, result or
// operator-readable failure, and its log lines. Shared by the producer
// library and the HTTP API. The worker redacts what it writes; the view
// redacts the failure and log lines again with what this process knows,
// for a job written by a worker that did not know a secret.
import type { Job, Queue } from 'bullmq';
import { isJobName } from '../../jobs/schema.js';
import type { JobName } from '../../jobs/schema.js';
import { redactSecrets } from '../secrets/redact.js';
import { withTextsSummarized } from './text-summary.js';

export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'prioritized' | 'waiting-children' | 'unknown';

export interface JobView {
  id: string;
  job: JobName;
  /** The job's data, userData and networkConfig as their size and keyed fingerprint only (SPEC 24). */
  data: object;
  state: JobState;
  progress: unknown;
  result?: unknown;
  failedReason?: string;
  attemptsMade: number;
  logs: string[];
  createdAt: string;
  finishedAt?: string;
}

export function isFinished(view: JobView): boolean {
  return view.state === 'completed' || view.state === 'failed';
}

/**
 * The state is read before the job's fields, so a job seen finished
 * always shows its result (a job finishing between the two reads would
 * otherwise look completed with no result).
 */
export async function viewJob(queue: Queue, id: string, fingerprintKey: string | undefined): Promise<JobView | undefined> {
  const state = await queue.getJobState(id);
  const job = (await queue.getJob(id)) as Job | undefined;
  if (job?.id === undefined || !isJobName(job.name)) return undefined;
  const logs = await queue.getJobLogs(job.id);
  const view: JobView = {
    id: job.id,
    job: job.name,
    data: withTextsSummarized(job.data as object, fingerprintKey),
    state,
    progress: job.progress,
    attemptsMade: job.attemptsMade,
    logs: logs.logs.map(redactSecrets),
    createdAt: new Date(job.timestamp).toISOString(),
  };
  if (state === 'completed') view.result = job.returnvalue;
  if (state === 'failed' && job.failedReason) view.failedReason = redactSecrets(job.failedReason);
  if (job.finishedOn) view.finishedAt = new Date(job.finishedOn).toISOString();
  return view;
}
