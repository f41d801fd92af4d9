// The address wait (SPEC 1, SPEC 10, SPEC 26): only the guest agent is
// asked (`agent/network-get-interfaces`), at the learned time a fresh
// boot takes to report an address, then in short polls. `QEMU guest agent
// is not running` and an answer with no address yet are "not yet"; any
// other answer re-reads the VM with a full Get, which says whether it is
// gone (Permanent), running with an address, or not yet.
import { TransientError } from '../errors.js';
import { AGENT_NOT_RUNNING, messageMatches } from '../proxmox/messages.js';
import type { CreateSpec, OperationContext, VmObservation } from './types.js';
import { callOpts } from './context.js';
import type { ProviderDeps } from './deps.js';
import { permanent, throwIfAborted, transient } from './errors.js';
import { pickAddress } from './address.js';
import { Expectations, PollSchedule, type ScheduleShape } from './expectations.js';
import { getVm } from './get.js';

const ADDRESS = 'address';

/**
 * While nothing is known, the agent is asked at gaps doubling from
 * pollMs/2 up to this many pollMs (8 s at the default): nine calls over
 * F21's 47 s instead of 47, at most 8 s late, and only until the process
 * has seen one boot. Once it has, the first call comes at the learned
 * boot time (not bounded by pollMs) and the next ones from pollMs/2
 * doubling to pollMs.
 */
const ADDRESS_UNKNOWN_CAP = 8;

export interface AddressTarget {
  node: string;
  vmid: number;
  /** net0 as configured: its MAC picks the interface (SPEC 10). */
  net0: string | undefined;
  /** True when this create started the VM: the wait then follows the learned boot time. */
  freshBoot: boolean;
}

export async function waitAddress(deps: ProviderDeps, ctx: OperationContext, spec: Pick<CreateSpec, 'name' | 'uid'>, vm: AddressTarget): Promise<VmObservation> {
  const budgetSeconds = deps.config.budgets.addressSeconds;
  const pollMs = deps.config.budgets.pollMs;
  const shape: ScheduleShape = { pollMs, shortMs: pollMs / 2, unknownCapMs: ADDRESS_UNKNOWN_CAP * pollMs, firstMayExceedPoll: true };
  const expectations = deps.waits?.expectations ?? new Expectations();
  // Only a boot this create started follows the learned boot time.
  const schedule = vm.freshBoot ? expectations.schedule(ADDRESS, shape) : new PollSchedule(undefined, shape);
  const startedAt = deps.now().getTime();
  const deadline = startedAt + budgetSeconds * 1000;
  // A VM that already ran (an adopted create) may have its address now.
  let delay = vm.freshBoot ? schedule.next() : 0;
  for (;;) {
    throwIfAborted(ctx.signal);
    const wait = Math.min(delay, deadline - deps.now().getTime());
    if (wait > 0) await deps.sleep(wait, ctx.signal);
    const askedAt = deps.now().getTime();
    const seen = await look(deps, ctx, spec, vm);
    if (seen !== undefined) {
      if (vm.freshBoot) expectations.observe(ADDRESS, askedAt - startedAt, schedule);
      return seen;
    }
    if (deps.now().getTime() >= deadline) {
      throw transient(`gave up waiting for an address from the guest agent of ${spec.name} after ${budgetSeconds} s`);
    }
    delay = schedule.next();
  }
}

/** One look: Running with its address, or undefined for not yet. */
async function look(deps: ProviderDeps, ctx: OperationContext, spec: Pick<CreateSpec, 'name' | 'uid'>, vm: AddressTarget): Promise<VmObservation | undefined> {
  try {
    const address = pickAddress(await deps.api.agentInterfaces(vm.node, vm.vmid, callOpts(ctx)), vm.net0);
    return address === undefined ? undefined : { state: 'Running', address };
  } catch (err) {
    throwIfAborted(ctx.signal);
    if (messageMatches(err, AGENT_NOT_RUNNING)) return undefined;
  }
  // Anything else from the agent: what the VM is now, read whole (SPEC 12).
  try {
    const seen = await getVm(deps, { name: spec.name, uid: spec.uid }, ctx);
    if (seen.state === 'NotFound') throw permanent(`VM of ${spec.name} disappeared while waiting for its address`);
    return seen.state === 'Running' ? seen : undefined;
  } catch (err) {
    if (err instanceof TransientError && !ctx.signal.aborted) return undefined;
    throw err;
  }
}
