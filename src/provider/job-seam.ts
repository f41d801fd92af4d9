// The seam as one operation sees it (SPEC 17): every call carries the
// job's signal and logger, and fails classified, a cancelled job's call as
// cancelled whatever it failed with. Built with the seam's one decorator
// (src/proxmox/decorate.ts), so a new Proxmox call needs no edit here.
// Reads that are not seam calls (the shared step reads, the listing) are
// classified by call.ts.
import type { ProxmoxApi } from '../proxmox/api.js';
import { decorateApi } from '../proxmox/decorate.js';
import { callOpts } from './context.js';
import type { ProviderDeps } from './deps.js';
import { classifyCall } from './errors.js';
import type { OperationContext } from './types.js';

/** `deps.api` for this operation: a call's own CallOptions (such as `via`) go over the job's. */
export function jobSeam(deps: Pick<ProviderDeps, 'api'>, ctx: OperationContext): ProxmoxApi {
  return decorateApi(deps.api, async (call, run) => {
    try {
      return await run({ ...callOpts(ctx), ...call.opts });
    } catch (err) {
      throw classifyCall(err, ctx.signal);
    }
  });
}
