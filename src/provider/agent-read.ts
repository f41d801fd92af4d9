// One guest agent read (SPEC 29): the fallback of a readiness that did not
// come within budgets.addressSeconds, and how a phone-home create without
// a lease learns its address. It answers the VM's address when the agent
// shows it (the lease's, when there is one), and in words what it said.
import { jobSeam } from './job-seam.js';
import { leasedAddressIn, pickAddress, reportedAddresses } from './address.js';
import type { ProviderDeps } from './deps.js';
import { throwIfAborted } from './errors.js';
import type { OperationContext } from './types.js';

export interface AgentTarget {
  node: string;
  vmid: number;
  /** net0 as configured: its MAC picks the interface (SPEC 10). */
  net0: string | undefined;
}

export interface AgentRead {
  address?: string;
  /** `the guest agent reports 10.0.0.5`, `... reports no address`, `the guest agent read failed: ...`. */
  said: string;
}

export async function readAgentOnce(deps: Pick<ProviderDeps, 'api'>, ctx: OperationContext, vm: AgentTarget, leased: string | undefined): Promise<AgentRead> {
  try {
    const interfaces = await jobSeam(deps, ctx).agentInterfaces(vm.node, vm.vmid);
    const address = leased === undefined ? pickAddress(interfaces, vm.net0) : leasedAddressIn(interfaces, vm.net0, leased);
    return address === undefined ? { said: `the guest agent reports ${reportedAddresses(interfaces, vm.net0)}` } : { address, said: `the guest agent reports ${address}` };
  } catch (err) {
    throwIfAborted(ctx.signal);
    return { said: `the guest agent read failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
