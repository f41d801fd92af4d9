// The end state SPEC 22 asks of a chaos run, checked from the outside:
// the simulator's /_sim/state against the registry (the desired state),
// and every job added against its final state.
import type { JobView } from '../../src/client.js';
import { parseMark } from '../../src/provider/mark.js';

export interface SimVmView {
  vmid: number;
  node: string;
  status: string;
  cloning: boolean;
  config: { name?: string; description?: string; template?: number | string; tags?: string };
}

export interface SimStateView {
  vms: SimVmView[];
  nodes: { node: string; storages: { storage: string; volumes: { volid: string; content: string }[] }[] }[];
}

export interface Desired {
  name: string;
  state: 'present' | 'absent';
  uid?: string;
}

/** Every broken invariant, in words; empty when the run ended well. */
export function stateViolations(state: SimStateView, desired: Desired[]): string[] {
  const problems: string[] = [];
  const ours = state.vms.filter((vm) => parseMark(vm.config.description) !== undefined);
  const byName = new Map<string, SimVmView[]>();
  for (const vm of ours) {
    const name = vm.config.name ?? `(no name, vmid ${vm.vmid})`;
    byName.set(name, [...(byName.get(name) ?? []), vm]);
  }
  const desiredNames = new Set(desired.map((d) => d.name));
  for (const d of desired) {
    const vms = byName.get(d.name) ?? [];
    if (vms.length > 1) problems.push(`${d.name}: ${vms.length} VMs (${vms.map((v) => v.vmid).join(', ')})`);
    if (d.state === 'absent' && vms.length > 0) problems.push(`${d.name}: desired absent, but VM ${vms.map((v) => v.vmid).join(', ')} is there`);
    if (d.state === 'present') {
      const vm = vms[0];
      if (vm === undefined) problems.push(`${d.name}: desired present, no VM`);
      else {
        if (parseMark(vm.config.description)?.uid !== d.uid) problems.push(`${d.name}: VM ${vm.vmid} carries uid ${parseMark(vm.config.description)?.uid ?? '(none)'}, desired ${d.uid ?? '(none)'}`);
        if (vm.status !== 'running' || vm.cloning) problems.push(`${d.name}: VM ${vm.vmid} is ${vm.cloning ? 'still cloning' : vm.status}, desired present and running`);
      }
    }
  }
  for (const [name, vms] of byName) {
    if (!desiredNames.has(name)) problems.push(`${name}: VM ${vms.map((v) => v.vmid).join(', ')} of ours under a name the registry does not know`);
  }
  // The simulator's seed storages are each node's own: a seed needs its VM on its node.
  for (const node of state.nodes) {
    for (const storage of node.storages) {
      for (const volume of storage.volumes) {
        const seed = /:iso\/(.+)-seed\.iso$/.exec(volume.volid)?.[1];
        const vms = seed === undefined ? undefined : (byName.get(seed) ?? []);
        if (seed === undefined || vms === undefined || vms.some((vm) => vm.node === node.node)) continue;
        const wanted = desired.find((d) => d.name === seed)?.state ?? 'unknown to the registry';
        const where = vms.length === 0 ? `has no VM ${seed}` : `has no VM ${seed} on its node (VM on ${vms.map((vm) => vm.node).join(', ')})`;
        problems.push(`seed ${volume.volid} on ${node.node} ${where} (desired ${wanted})`);
      }
    }
  }
  return problems;
}

export interface JobTally {
  completed: number;
  superseded: number;
  failed: number;
  problems: string[];
}

function isSuperseded(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { superseded?: unknown }).superseded === true;
}

/** Every job ended completed, superseded, or failed with a reason. */
export function tallyJobs(views: Map<string, JobView | undefined>): JobTally {
  const tally: JobTally = { completed: 0, superseded: 0, failed: 0, problems: [] };
  for (const [id, view] of views) {
    if (view === undefined) {
      tally.problems.push(`job ${id} is gone`);
      continue;
    }
    if (view.state === 'completed') {
      if (isSuperseded(view.result)) tally.superseded += 1;
      else tally.completed += 1;
    } else if (view.state === 'failed') {
      tally.failed += 1;
      if ((view.failedReason ?? '').trim() === '') tally.problems.push(`job ${id} (${view.job} ${JSON.stringify(view.data)}) failed with no reason`);
    } else tally.problems.push(`job ${id} (${view.job}) ended ${view.state}`);
  }
  return tally;
}

/** A VM the run planted that is not ours (SPEC 23: at a name's uid VMID on another node). */
export interface ForeignVm {
  vmid: number;
  node: string;
  name: string;
}

/** Every planted foreign VM still there, on its node, with its name and no mark of ours. */
export function foreignViolations(state: SimStateView, foreign: ForeignVm[]): string[] {
  const problems: string[] = [];
  for (const planted of foreign) {
    const vm = state.vms.find((v) => v.vmid === planted.vmid);
    if (vm === undefined) problems.push(`foreign VM ${planted.vmid} (${planted.name}) on ${planted.node} is gone`);
    else if (vm.node !== planted.node || vm.config.name !== planted.name || parseMark(vm.config.description) !== undefined) {
      problems.push(`foreign VM ${planted.vmid} (${planted.name}) on ${planted.node} was changed: now ${vm.config.name ?? '(no name)'} on ${vm.node}`);
    }
  }
  const vmids = state.vms.map((v) => v.vmid);
  const twice = vmids.filter((id, i) => vmids.indexOf(id) !== i);
  if (twice.length > 0) problems.push(`the cluster holds VMID ${[...new Set(twice)].join(', ')} twice`);
  return problems;
}

/**
 * One lease the run set on a name (SPEC 31): version `version`, ending at
 * `expiresAt`, in force from `setAt` until the name's next intent or its
 * renewal (`until`, Infinity when neither came); `renewed` when a newer
 * version replaced it.
 */
export interface LeaseSpan {
  name: string;
  version: number;
  setAt: number;
  expiresAt: number;
  until: number;
  renewed: boolean;
}

/** The names of ours whose VM the simulator holds (and runs) at `at`. */
export interface VmSample {
  at: number;
  held: ReadonlySet<string>;
}

/** A delete or stop a lease's expiry added that ended a VM: recorded at `recordedAt` (its job's add). */
export interface ExpiryEnd {
  jobId: string;
  name: string;
  leaseVersion: number;
  expiredAt: number;
  recordedAt: number;
}

/**
 * SPEC 31 under chaos: no VM of an expired lease is alive later than
 * `boundMs` after its expiry (while no newer intent came for the name),
 * and no VM whose lease was renewed ends early (an expiry of an older
 * version recorded after the renewal, or any expiry before its time).
 */
export function leaseViolations(spans: readonly LeaseSpan[], samples: readonly VmSample[], ends: readonly ExpiryEnd[], boundMs: number): string[] {
  const problems: string[] = [];
  for (const span of spans) {
    if (span.renewed || span.expiresAt + boundMs >= span.until) continue;
    const late = samples.find((s) => s.at > span.expiresAt + boundMs && s.at < span.until && s.held.has(span.name));
    if (late) problems.push(`${span.name}: VM alive ${((late.at - span.expiresAt) / 1000).toFixed(1)} s after its lease (version ${span.version}) expired; bound ${(boundMs / 1000).toFixed(1)} s`);
  }
  for (const end of ends) {
    if (end.recordedAt < end.expiredAt) problems.push(`${end.name}: job ${end.jobId} ended the VM ${end.expiredAt - end.recordedAt} ms before its lease expired`);
    const renewal = spans.find((s) => s.name === end.name && s.version > end.leaseVersion && s.setAt < end.recordedAt && s.until > end.recordedAt);
    if (renewal) problems.push(`${end.name}: job ${end.jobId} ended the VM on lease version ${end.leaseVersion}, renewed to version ${renewal.version} before it`);
  }
  return problems;
}
