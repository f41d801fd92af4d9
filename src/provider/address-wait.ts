// The address wait (SPEC 1, SPEC 10, SPEC 26): only the guest agent is
// asked (`agent/network-get-interfaces`), never before the learned time
// a fresh boot of the image takes to report an address (with nothing
// learned, budgets.firstAddressSeconds), then in short polls: each `not
// running` answer holds one of the node's pvedaemon workers ~3 s (issue
// 27, audit 4.2). `QEMU guest agent
// is not running` and an answer with no address yet are "not yet"; any
// other answer re-reads the VM with a full Get, which says whether it is
// gone (Permanent), running with an address, or not yet.
import { TransientError } from '../errors.js';
import { AGENT_NOT_RUNNING, messageMatches } from '../proxmox/messages.js';
import type { CreateSpec, OperationContext, VmObservation } from './types.js';
import { callOpts } from './context.js';
import type { ProviderDeps } from './deps.js';
import { permanent, throwIfAborted, transient } from './errors.js';
import { leasedAddressIn, pickAddress } from './address.js';
import { PollSchedule, perImage, type ScheduleShape } from './waits/expectations.js';
import { getVm } from './get.js';

const ADDRESS = 'address';

/**
 * While nothing is known of the image, the first call comes at
 * budgets.firstAddressSeconds after the start, the next ones at gaps
 * doubling from pollMs/2 up to this many pollMs (8 s at the default):
 * about six calls over F21's 47 s, and only until the image's boot was
 * seen once by any worker (the times are shared in Redis). Once it has,
 * the first call comes at the learned boot time (not bounded by pollMs)
 * and the next ones from pollMs/2 doubling to pollMs.
 */
const ADDRESS_UNKNOWN_CAP = 8;

export interface AddressTarget {
  node: string;
  vmid: number;
  /** net0 as configured: its MAC picks the interface (SPEC 10). */
  net0: string | undefined;
  /** True when this create started the VM: the wait then follows the learned boot time. */
  freshBoot: boolean;
  /** The image the VM was made from: boot times are learned per image. */
  image: string;
  /** For a fresh boot, when its start task ended (ms): boot times are counted from there; the wait's own start otherwise. */
  bootAt?: number;
  /** The lease's address (SPEC 29): the wait ends when the agent reports that one. */
  leased?: string;
}

/** The kind the boot time of an image is learned under. */
export function addressKind(image: string): string {
  return perImage(ADDRESS, image);
}

export async function waitAddress(deps: ProviderDeps, ctx: OperationContext, spec: Pick<CreateSpec, 'name' | 'uid'>, vm: AddressTarget): Promise<VmObservation> {
  const budgetSeconds = deps.config.budgets.addressSeconds;
  const pollMs = deps.config.budgets.pollMs;
  const shape: ScheduleShape = { pollMs, shortMs: pollMs / 2, unknownCapMs: ADDRESS_UNKNOWN_CAP * pollMs, firstMayExceedPoll: true };
  const expectations = deps.waits.expectations;
  const kind = addressKind(vm.image);
  const startedAt = deps.now().getTime();
  const deadline = startedAt + budgetSeconds * 1000;
  // Only a boot this create started follows the learned boot time; what other workers learned is read first.
  if (vm.freshBoot) await expectations.current();
  // A first look at or past the wait's end would be its only one: at most half the budget.
  const firstLookMs = Math.min(deps.config.budgets.firstAddressSeconds, budgetSeconds / 2) * 1000;
  const schedule = vm.freshBoot ? expectations.schedule(kind, shape, firstLookMs) : new PollSchedule(undefined, shape);
  const bootAt = Math.min(vm.bootAt ?? startedAt, startedAt);
  // A VM that already ran (an adopted create) may have its address now.
  let dueAt = vm.freshBoot ? bootAt + schedule.next() : startedAt;
  for (;;) {
    throwIfAborted(ctx.signal);
    const wait = Math.min(dueAt, deadline) - deps.now().getTime();
    if (wait > 0) await deps.sleep(wait, ctx.signal);
    let sentAt = deps.now().getTime();
    const seen = await look(deps, ctx, spec, vm, () => {
      sentAt = deps.now().getTime();
    });
    if (seen !== undefined) {
      const upAt = vm.freshBoot ? seenUpAt(sentAt, dueAt, schedule, shape.shortMs) : undefined;
      if (upAt !== undefined) expectations.observe(kind, upAt - bootAt, schedule);
      return seen;
    }
    if (deps.now().getTime() >= deadline) {
      throw transient(`gave up waiting for an address from the guest agent of ${spec.name} after ${budgetSeconds} s`);
    }
    dueAt = deps.now().getTime() + schedule.next();
  }
}

/**
 * When the guest is known to have been up, for the boot time learned
 * (SPEC 26): the agent call's send, not its ask, since a wait
 * for a daemon slot or the request budget before it is the service's
 * time and the guest may have come up during it (the ask would learn a
 * time too short). A planned look (the first, at firstAddressSeconds or
 * the learned time) that went out late, because the running wait or the
 * slot queue held it, counts at its plan: the lateness is the service's,
 * not the guest's, and must not push the learned time up. Nor down: a
 * look of a learned time sent more than a short poll after its plan says
 * only that the guest was up by the send, not that it was by the plan
 * (it may have come up in between), so it teaches nothing. Counted at
 * the plan, every such look took 2% off (OVER_AT_FIRST_LOOK) while the
 * guest came up after it: a long storm's queues drove the learned time
 * down to the boot less the queue, and the looks after it asked a guest
 * not yet up, each `not running` holding a pvedaemon worker ~3 s. The
 * first look with nothing learned still counts at its plan: its guess is
 * half of it anyway, and the polls after a guess teach the real time.
 */
function seenUpAt(sentAt: number, dueAt: number, schedule: PollSchedule, shortMs: number): number | undefined {
  if (!schedule.withinPlan) return sentAt;
  if (sentAt - dueAt > shortMs && !schedule.overAtGuess) return undefined;
  return Math.min(sentAt, dueAt);
}

/** One look: Running with its address, or undefined for not yet. `onSend` is told when the agent call leaves. */
async function look(deps: ProviderDeps, ctx: OperationContext, spec: Pick<CreateSpec, 'name' | 'uid'>, vm: AddressTarget, onSend: () => void): Promise<VmObservation | undefined> {
  try {
    const interfaces = await deps.api.agentInterfaces(vm.node, vm.vmid, { ...callOpts(ctx), onSend });
    const address = vm.leased === undefined ? pickAddress(interfaces, vm.net0) : leasedAddressIn(interfaces, vm.net0, vm.leased);
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
