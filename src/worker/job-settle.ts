// A job's writes once its handler has ended (SPEC 2, 3, 21): the
// last-known states the handler left, the held name's with the lock's
// release in one call and the others' one by one, made once whether the
// handler returned or threw; and a Permanent failure kept on the name,
// then what it leaves to clean up (the definition's afterPermanentFailure).
import type { Job } from 'bullmq';
import type { AnyJobDefinition, JobContext, JobDeps } from '../../jobs/types.js';
import type { LastKnownWrite } from '../desired-state.js';
import type { DesiredStateRegistry } from '../queue/registry.js';
import type { HeldName } from './name-claim.js';

/** The last-known states a handler left (JobContext.setLastKnown), by name. */
export type LastKnownWrites = Map<string, LastKnownWrite>;

/** The run's settle: the first call writes and releases, a later one answers the same promise. */
export function settlement(registry: Pick<DesiredStateRegistry, 'recordLastKnown'>, held: HeldName | undefined, lastKnown: LastKnownWrites): () => Promise<void> {
  let settled: Promise<void> | undefined;
  const settle = async (): Promise<void> => {
    const own = held && lastKnown.get(held.name);
    for (const [other, write] of lastKnown) if (write !== own) await registry.recordLastKnown(other, write.lastKnown, write.ifState);
    if (held) await (own ? held.lock.releaseWriting(own) : held.lock.release());
  };
  return () => (settled ??= settle());
}

/** SPEC 2: the reconciler re-creates the name no more until a new create arrives. A failed write is let go: the job fails anyway. */
export async function recordPermanentFailure(registry: Pick<DesiredStateRegistry, 'recordFailure'>, name: string, job: Job, generation: number, error: Error): Promise<void> {
  // Stryker disable next-line StringLiteral: a job taken from a queue always has an id; ?? '' is for the type checker
  const failure = { reason: error.message, jobId: job.id ?? '', generation, at: new Date().toISOString() };
  await registry.recordFailure(name, failure).catch(() => undefined);
}

/** The definition's clean-up after its Permanent failure (SPEC 29: a create's address lease); a failure of it goes to the job log, the job fails as it would. */
export async function afterPermanentFailure(definition: AnyJobDefinition, data: unknown, deps: JobDeps, ctx: JobContext): Promise<void> {
  if (!definition.afterPermanentFailure) return;
  try {
    await definition.afterPermanentFailure(data, deps, ctx);
  } catch (err) {
    await Promise.resolve(ctx.log?.(`after the failure: ${err instanceof Error ? err.message : String(err)}`)).catch(() => undefined);
  }
}
