// Readiness without the guest agent (SPEC 29): once the VM runs, a create
// of an image with readiness `phone-home`, `tcp` or `none` waits for that
// signal alone, with no Proxmox call: the guest's call to /v1/ready/<token>
// seen in Redis (read every pollMs/2), a TCP connect to the leased address
// that is accepted (gaps from pollMs/4 doubling to pollMs, each connect
// bounded by budgets.connectMs), or nothing. A signal that does not come
// within budgets.addressSeconds gets one guest agent read: the create
// completes when it shows the VM's address, else fails (Transient, as the
// agent's own wait does) saying which signal never came and what the
// agent said.
import type { Readiness } from '../config/types.js';
import { logLine } from './context.js';
import type { ProviderDeps } from './deps.js';
import { throwIfAborted, transient } from './errors.js';
import { readAgentOnce, type AgentTarget } from './agent-read.js';
import { requireReadySignals } from './phone-home.js';
import { tcpConnect } from './tcp-connect.js';
import type { CreateSpec, OperationContext } from './types.js';

export type AgentlessReadiness = Exclude<Readiness, 'agent'>;

export interface ReadyOutcome {
  /** The lease's address; without a lease, what one agent read showed (phone-home), if anything. */
  address?: string;
}

type ReadySpec = Pick<CreateSpec, 'name' | 'uid' | 'address'>;

export async function awaitReadiness(
  deps: ProviderDeps,
  ctx: OperationContext,
  spec: ReadySpec,
  readiness: { mode: AgentlessReadiness; port: number },
  vm: AgentTarget,
): Promise<ReadyOutcome> {
  const leased = spec.address?.address;
  const seconds = deps.config.budgets.addressSeconds;
  let missing: string;
  switch (readiness.mode) {
    case 'none':
      await logLine(ctx, `VM ${vm.vmid}: readiness none: ready once it runs`);
      return leased === undefined ? {} : { address: leased };
    case 'tcp': {
      // ready-refusal.ts refused a waiting tcp create without a lease before any call.
      const host = leased ?? '';
      await logLine(ctx, `VM ${vm.vmid}: readiness tcp: waiting up to ${seconds} s for ${host}:${readiness.port} to accept a TCP connection`);
      const last = await waitTcp(deps, ctx, host, readiness.port);
      if (last === undefined) {
        await logLine(ctx, `VM ${vm.vmid}: ${host}:${readiness.port} accepted a TCP connection`);
        return { address: host };
      }
      missing = `nothing accepted TCP on ${host}:${readiness.port} within ${seconds} s (the last attempt: ${last})`;
      break;
    }
    case 'phone-home': {
      await logLine(ctx, `VM ${vm.vmid}: readiness phone-home: waiting up to ${seconds} s for its guest's call to /v1/ready/<token>`);
      if (await waitPhoneHome(deps, ctx, spec)) {
        await logLine(ctx, `VM ${vm.vmid}: its guest phoned home`);
        return leased === undefined ? addressWithoutLease(deps, ctx, vm) : { address: leased };
      }
      missing = `the guest never phoned home within ${seconds} s`;
      break;
    }
  }
  const read = await readAgentOnce(deps, ctx, vm, leased);
  if (read.address !== undefined) {
    await logLine(ctx, `VM ${vm.vmid}: ${missing}, but one guest agent read shows its address ${read.address}: ready`);
    return { address: read.address };
  }
  throw transient(`create ${spec.name}: ${missing}; one guest agent read then: ${read.said}`);
}

/**
 * Phone-home on a network with no pool (docs/decisions.md): the guest's
 * call says it is ready, one agent read says where; a guest without an
 * agent completes without an address.
 */
async function addressWithoutLease(deps: ProviderDeps, ctx: OperationContext, vm: AgentTarget): Promise<ReadyOutcome> {
  const read = await readAgentOnce(deps, ctx, vm, undefined);
  if (read.address !== undefined) return { address: read.address };
  await logLine(ctx, `VM ${vm.vmid}: no pooled address, and ${read.said}: ready without an address`);
  return {};
}

/** True once the guest's signal is in Redis; false when the budget ran out. A failed read counts as not yet. */
async function waitPhoneHome(deps: ProviderDeps, ctx: OperationContext, spec: ReadySpec): Promise<boolean> {
  const signals = requireReadySignals(deps, spec.name);
  const gap = deps.config.budgets.pollMs / 2;
  return pollReady(deps, ctx, () => gap, () => signals.arrived(spec.name, spec.uid).catch(() => false));
}

/** undefined once a connect was accepted; else why the last one was not. */
async function waitTcp(deps: ProviderDeps, ctx: OperationContext, host: string, port: number): Promise<string | undefined> {
  const { pollMs, connectMs } = deps.config.budgets;
  // The first gap is pollMs/4: each gap doubles the one before, up to pollMs.
  let gap = pollMs / 8;
  let last: string | undefined;
  const ready = await pollReady(
    deps,
    ctx,
    () => (gap = Math.min(gap * 2, pollMs)),
    async () => (last = await tcpConnect(host, port, connectMs, ctx.signal)) === undefined,
  );
  return ready ? undefined : (last ?? 'none made');
}

/** Probes until it answers true or budgets.addressSeconds have passed (false), sleeping nextGap() between. */
async function pollReady(deps: ProviderDeps, ctx: OperationContext, nextGap: () => number, probe: () => Promise<boolean>): Promise<boolean> {
  const deadline = deps.now().getTime() + deps.config.budgets.addressSeconds * 1000;
  for (;;) {
    throwIfAborted(ctx.signal);
    if (await probe()) return true;
    const left = deadline - deps.now().getTime();
    if (left <= 0) return false;
    await deps.sleep(Math.min(nextGap(), left), ctx.signal);
  }
}
