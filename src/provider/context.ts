// What an operation does with its job context: pass the job's signal to
// every seam call, run the lock check before a write (SPEC 3), write a
// line to the job log.
import type { CallOptions } from '../proxmox/api.js';
import type { OperationContext } from './types.js';

/** The per-call options of the seam: every call honours the job's signal. */
export function callOpts(ctx: OperationContext): CallOptions {
  return { signal: ctx.signal };
}

/** Runs the caller's lock check before a Proxmox write (SPEC 3). */
export function beforeWrite(ctx: OperationContext): void {
  ctx.beforeWrite?.();
}

export async function logLine(ctx: OperationContext, line: string): Promise<void> {
  await ctx.log?.(line);
}
