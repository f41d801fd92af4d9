// One seam call, its failure classified (SPEC 17); a cancelled job is
// reported as cancelled whatever the call failed with.
import type { OperationContext } from './types.js';
import { classifyCall } from './errors.js';

export async function call<T>(ctx: OperationContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw classifyCall(err, ctx.signal);
  }
}
