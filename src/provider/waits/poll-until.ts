// The one polling loop every wait runs on (SPEC 16): a probe every
// budgets.pollMs until it answers, a budget, and the job's AbortSignal,
// which ends the wait at once.
import type { OperationContext } from '../types.js';
import type { ProviderDeps } from '../deps.js';
import { throwIfAborted, transient } from '../errors.js';

export interface PollOptions {
  /** What is awaited, for the budget error: `task UPID:... to end`. */
  what: string;
  budgetSeconds: number;
}

/** The probe answers a value when done, undefined to poll again. */
export async function pollUntil<T>(
  deps: ProviderDeps,
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
