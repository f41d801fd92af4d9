// The clock of `verify --create` (SPEC 33): each step's time and the
// Proxmox calls made during it, by seam method. A step is named by what
// ends it (the create's progress steps, then the delete and the leftovers
// check), so a call belongs to the step it helped reach.
import type { ProxmoxApi } from '../../proxmox/api.js';
import { decorateApi } from '../../proxmox/decorate.js';

/** One step of the create (or the delete) on one node: its time and the Proxmox calls it made, by seam method. */
export interface CreateStepReport {
  step: string;
  ms: number;
  calls: Record<string, number>;
}

export interface StepClock {
  /** The api to make the calls through: each call is counted in the step under way. */
  readonly api: ProxmoxApi;
  /** The step under way has ended, named `step`. */
  ended(step: string): void;
  /** The steps ended so far, in order. */
  readonly steps: CreateStepReport[];
  /** The VMID the create's clone asked for, once it was sent: the delete finds a clone in progress by it. */
  readonly newid: number | undefined;
}

export function stepClock(api: ProxmoxApi, now: () => number = Date.now): StepClock {
  const steps: CreateStepReport[] = [];
  let calls: Record<string, number> = {};
  let since = now();
  let newid: number | undefined;
  return {
    api: decorateApi(api, (call, run) => {
      calls[call.name] = (calls[call.name] ?? 0) + 1;
      if (call.ids.newid !== undefined) newid = call.ids.newid;
      return run(call.opts);
    }),
    get newid() {
      return newid;
    },
    ended(step) {
      const at = now();
      steps.push({ step, ms: at - since, calls });
      calls = {};
      since = at;
    },
    steps,
  };
}
