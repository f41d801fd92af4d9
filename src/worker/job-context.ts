// What a job's handler gets besides its data and deps (jobs/types.ts
// JobContext): its logger, its one signal, its log and progress, the
// check before each Proxmox write (SPEC 3), and where it leaves the
// last-known states the run writes once it has ended (job-settle.ts).
import type { Job } from 'bullmq';
import type { JobContext } from '../../jobs/types.js';
import { createStepPercent } from '../job-table/result.schema.js';
import type { LastKnownWrite } from '../desired-state.js';
import type { Logger } from '../log.js';
import type { CreateStep } from '../provider/types.js';
import type { LazyAbortController } from '../queue/lazy-abort.js';
import type { HeldLock } from '../queue/name-lock.js';
import { redactSecrets } from '../secrets/redact.js';

/**
 * The job's own logger: its id, job name and VM name on every line the
 * provider writes for it, and its cluster in the several-clusters form
 * (SPEC 32). The VM name is `vm`: pino writes the logger's own `name` on
 * every line, and a second `name` key would repeat it.
 */
export function jobLogger(processLogger: Logger, job: Job, vm: string | undefined, cluster?: string): Logger {
  return processLogger.child({ jobId: job.id, job: job.name, ...(vm === undefined ? {} : { vm }), ...(cluster === undefined ? {} : { cluster }) });
}

export function jobContext(
  job: Job,
  makeLogger: () => Logger,
  aborter: LazyAbortController,
  held: HeldLock | undefined,
  lastKnown: Map<string, LastKnownWrite>,
): JobContext {
  const log = async (line: string): Promise<void> => {
    await job.log(redactSecrets(line));
  };
  let logger: Logger | undefined;
  return {
    // Stryker disable next-line StringLiteral: a job taken from a queue always has an id; ?? '' is for the type checker
    jobId: job.id ?? '',
    // A pino child costs microseconds; made when the handler first logs (SPEC 21).
    get logger() {
      return (logger ??= makeLogger());
    },
    // Made when the handler first asks (lazy-abort.ts).
    get signal() {
      return aborter.signal;
    },
    log,
    progress: async (step: CreateStep) => {
      // A number for Bull Board's bar; the step itself in the job's data and its log.
      const waitForAddress = (job.data as { waitForAddress?: unknown }).waitForAddress !== false;
      await Promise.all([job.updateData({ ...(job.data as object), step }), job.updateProgress(createStepPercent(step, waitForAddress))]);
      await log(`step: ${step}`);
    },
    beforeWrite: () => {
      aborter.throwIfAborted();
      held?.check();
    },
    setLastKnown: (name, seen, ifState) => {
      // Stryker disable next-line ConditionalExpression: { ifState: undefined } is written exactly as no ifState
      lastKnown.set(name, ifState === undefined ? { lastKnown: seen } : { lastKnown: seen, ifState });
    },
  };
}
