// One wait polled on its own (SPEC 16): a probe every budgets.pollMs
// until it answers, a budget, and the job's AbortSignal, which ends the
// wait at once. Only the lock wait (tasks.ts' waitUnlocked) runs on it;
// tasks and VMs to run wait on the boards (SPEC 26).
import type { OperationContext } from '../types.js';
import { throwIfAborted, transient } from '../errors.js';
import type { LoopClock } from './poll-loop.js';

export interface PollOptions {
  /** What is awaited, for the budget error: `VM 123 on pv1-1 to be unlocked`. */
  what: string;
  budgetSeconds: number;
}

/** What a lone poll needs of the provider's deps: its clock and budgets.pollMs. */
export interface PollDeps extends LoopClock {
  config: { budgets: { pollMs: number } };
}

/** The probe answers a value when done, undefined to poll again. */
export async function pollUntil<T>(
  deps: PollDeps,
  ctx: OperationContext,
  options: PollOptions,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = deps.now().getTime() + options.budgetSeconds * 1000;
  for (;;) {
    throwIfAborted(ctx.signal);
    const answer = await probe();
    if (answer !== undefined) return answer;
    if (deps.now().getTime() >= deadline) {
      throw transient(`gave up waiting for ${options.what} after ${options.budgetSeconds} s`);
    }
    await deps.sleep(deps.config.budgets.pollMs, ctx.signal);
  }
}
