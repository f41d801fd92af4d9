// The delete after `verify --create` (SPEC 33), whatever the create got to.
// The provider's delete answers Transient while a clone of ours is still
// running or a lock is held (SPEC 15); a worker would retry the job, so
// this retries too, until the clone and task budgets have passed.
import type { Config } from '../../config/types.js';
import { TransientError } from '../../errors.js';
import type { DeleteRequest, DeleteResult, Provider } from '../../provider/types.js';

export async function deleteUntilGone(provider: Provider, request: DeleteRequest, config: Config, sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))): Promise<DeleteResult> {
  const { cloneSeconds, taskSeconds, pollMs } = config.budgets;
  const deadline = Date.now() + (cloneSeconds + 3 * taskSeconds) * 1000;
  for (;;) {
    try {
      // A signal of its own: the caller's may be the Ctrl-C that brought us here.
      return await provider.delete(request, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
    } catch (err) {
      if (!(err instanceof TransientError) || Date.now() >= deadline) throw err;
      await sleep(pollMs);
    }
  }
}
