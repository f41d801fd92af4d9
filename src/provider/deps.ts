// What every provider operation is built from: the seam, the config it
// reads, a logger, and the clock and sleep it polls with (tests inject
// both so polling never really waits), and the waits one provider
// instance shares (SPEC 26).
import type { Logger } from '../log.js';
import type { Config } from '../config/types.js';
import type { CallOptions, ProxmoxApi } from '../proxmox/api.js';
import type { OperationContext } from './types.js';
import type { Waits } from './waits.js';

export type ProviderConfig = Pick<Config, 'proxmox' | 'budgets'>;

export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface ProviderDeps {
  api: ProxmoxApi;
  config: ProviderConfig;
  logger: Logger;
  now: () => Date;
  sleep: Sleep;
  /** The process's shared waits (SPEC 26); without them each task and VM is polled on its own. */
  waits?: Waits;
}

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
