// Create meets a VM of ours (our mark) under its name with another uid
// (SPEC 11: not ours for this uid). Permanent for the provider; the job
// layer may replace it when the registry says that uid was retired.
import { PermanentError } from '../errors.js';

export class NameHeldByOtherUidError extends PermanentError {
  constructor(
    readonly vmName: string,
    readonly vmid: number,
    readonly otherUid: string,
  ) {
    const reason = `VM ${vmid} is named ${vmName} but is marked with another uid (${otherUid}); rename or remove it, the service will not take it over`;
    super(reason, { reason });
  }
}
