// What a caller sees of a job (SPEC 6): its state, progress and step,
// result or operator-readable failure, and its log lines, typed by the
// job's name. Shared by the producer library and the HTTP API. The worker
// redacts what it writes; the view redacts the failure and log lines
// again with what this process knows, for a job written by a worker that
// did not know a secret.
import type { Job, Queue } from 'bullmq';
import { isCreateStep } from '../job-table/result.schema.js';
import type { CreateStep, JobResults } from '../job-table/result.schema.js';
import { isJobName } from '../job-table/schema.js';
import type { JobDataOf, JobName } from '../job-table/schema.js';
import { redactSecrets } from '../secrets/redact.js';
import { withTextsSummarized } from './text-summary.js';
import type { TextsSummarized } from './text-summary.js';

export const JOB_STATES = ['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized', 'waiting-children', 'unknown'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** A job's data as a view shows it: userData and networkConfig as their size and keyed fingerprint only (SPEC 24), the step apart. */
export type JobDataView<N extends JobName> = TextsSummarized<Omit<JobDataOf[N], 'step'>>;

export interface JobViewOf<N extends JobName> {
  id: string;
  job: N;
  /** The job's data, userData and networkConfig as their size and keyed fingerprint only (SPEC 24). */
  data: JobDataView<N>;
  state: JobState;
  /** How far the job got, 0 to 100 (Bull Board's bar): a create's steps spread evenly up to its last. */
  progress: number;
  /** The last step a create reached (SPEC 1); absent before its first step and for other jobs. */
  step?: CreateStep;
  /** With state completed. A create or delete that a newer request made moot answers SupersededResult. */
  result?: JobResults[N];
  failedReason?: string;
  attemptsMade: number;
  logs: string[];
  createdAt: string;
  finishedAt?: string;
}

/**
 * One job as a caller sees it: `JobView<'create'>` a create's, with its
 * CreateResult; a plain `JobView` any job's, narrowed by `view.job`.
 */
export type JobView<N extends JobName = JobName> = { [K in N]: JobViewOf<K> }[N];

export function isFinished(view: JobView): boolean {
  return view.state === 'completed' || view.state === 'failed';
}

/** The step from the job's data; a job stored by an older release kept it in progress ({step}). */
function stepOf(stored: unknown, progress: unknown): CreateStep | undefined {
  const step = stored ?? (typeof progress === 'object' && progress !== null ? (progress as { step?: unknown }).step : undefined);
  return isCreateStep(step) ? step : undefined;
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
  const { step: stored, ...data } = job.data as { step?: unknown };
  const step = stepOf(stored, job.progress);
  // What the worker stored for the job's name: its data validated at the door, its result its handler's.
  return {
    id: job.id,
    job: job.name,
    data: withTextsSummarized(data, fingerprintKey),
    state,
    progress: typeof job.progress === 'number' ? job.progress : 0,
    ...(step === undefined ? {} : { step }),
    ...(state === 'completed' ? { result: job.returnvalue as unknown } : {}),
    ...(state === 'failed' && job.failedReason ? { failedReason: redactSecrets(job.failedReason) } : {}),
    attemptsMade: job.attemptsMade,
    logs: logs.logs.map(redactSecrets),
    createdAt: new Date(job.timestamp).toISOString(),
    ...(job.finishedOn ? { finishedAt: new Date(job.finishedOn).toISOString() } : {}),
  } as JobView;
}
