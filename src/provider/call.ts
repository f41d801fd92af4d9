// One read that is not a seam call (a shared step read, the VM listing)
// or a task's write, its failure classified (SPEC 17); a cancelled job is
// reported as cancelled whatever the call failed with. Seam calls are
// classified by job-seam.ts, the seam as one operation sees it.
import type { OperationContext } from './types.js';
import { classifyCall } from './errors.js';

export async function call<T>(ctx: OperationContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw classifyCall(err, ctx.signal);
  }
}
