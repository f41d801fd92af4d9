// Stop (SPEC 31): a lease's expiry with onExpiry `stop`. Resolve the VM as
// a delete does (by name and uid, SPEC 15), then its stop step alone: the
// VM, its disks and its seed stay, so a later create of the same spec
// adopts it and starts it (SPEC 13 step 1, then 7). A VM that is not ours
// is never touched; a hibernated one is stopped already.
import type { OperationContext, StopRequest, StopResult } from './types.js';
import type { ProviderDeps } from './deps.js';
import { resolveOurs, stopIfRunning } from './delete.js';
import { logLine } from './context.js';

export async function stopVm(deps: ProviderDeps, request: StopRequest, ctx: OperationContext): Promise<StopResult> {
  const { doomed } = await resolveOurs(deps, ctx, request, 'stop');
  const [first] = doomed;
  if (first === undefined) {
    await logLine(ctx, `no running VM of ours named ${request.name} with uid ${request.uid}; nothing to stop`);
    return { stopped: false };
  }
  let stopped = false;
  // A hibernated VM is stopped already (get.ts reads it Stopped): reported as there, its saved state untouched.
  for (const vm of doomed) if (vm.hibernated !== true) stopped = (await stopIfRunning(deps, ctx, vm)) || stopped;
  if (!stopped) await logLine(ctx, `VM ${first.vmid} was stopped already${first.hibernated === true ? ' (hibernated)' : ''}`);
  return { stopped, vmid: first.vmid, node: first.node };
}
