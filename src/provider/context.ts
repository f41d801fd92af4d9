// What an operation does with its job context: pass the job's signal to
// every seam call, run the lock check before a write (SPEC 3), write a
// line to the job log, log through the job's logger.
import type { Logger } from '../log.js';
import type { CallOptions } from '../proxmox/api.js';
import type { OperationContext } from './types.js';

/** The per-call options of the seam: every call honours the job's signal and logs its debug line through the job's logger. */
export function callOpts(ctx: OperationContext): CallOptions {
  return ctx.logger === undefined ? { signal: ctx.signal } : { signal: ctx.signal, logger: ctx.logger };
}

/** Runs the caller's lock check before a Proxmox write (SPEC 3). */
export function beforeWrite(ctx: OperationContext): void {
  ctx.beforeWrite?.();
}

export async function logLine(ctx: OperationContext, line: string): Promise<void> {
  await ctx.log?.(line);
}

/** The logger for a line about this operation: the job's (its id on every line, SPEC 9), else the process's. */
export function logFor(deps: { logger: Logger }, ctx: OperationContext): Logger {
  return ctx.logger ?? deps.logger;
}

/** The ids of the jobs a shared wait serves, for a line about all of them. */
export function jobIdsOf(contexts: readonly OperationContext[]): string[] {
  return contexts.flatMap((ctx) => (ctx.jobId === undefined ? [] : [ctx.jobId]));
}
