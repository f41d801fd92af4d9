// What SPEC 32 asks of a chaos run on several clusters, one of them taken
// away mid-drive, checked from the outside on each simulator's
// /_sim/state: every cluster's names as desired there and nowhere else (no
// name with VMs on two clusters, no VM of ours under a name living on
// another), no name moved to another cluster, and the away cluster's VMs
// still there, not deleted nor made again, once it is back.
import { parseMark } from '../../src/provider/mark.js';
import { stateViolations, type Desired, type SimStateView, type SimVmView } from './invariants.js';

export interface ClusterDesired extends Desired {
  /** The cluster its record names. */
  cluster: string;
}

/** A VM of ours on the away cluster when it went: its name's, running, fully made. */
export interface KeptVm {
  name: string;
  vmid: number;
  uid: string;
}

const ours = (vm: SimVmView): boolean => parseMark(vm.config.description) !== undefined;

/** Each VM of ours on `cluster` whose name lives on another cluster, in words. */
export function elsewhereViolations(cluster: string, state: SimStateView, clusterOfName: ReadonlyMap<string, string>): string[] {
  return state.vms.flatMap((vm) => {
    const home = clusterOfName.get(vm.config.name ?? '');
    return ours(vm) && home !== undefined && home !== cluster ? [`${vm.config.name ?? ''}: lives on ${home}, but VM ${vm.vmid} of ours is on ${cluster}`] : [];
  });
}

/**
 * Every cluster's end state against the names living there (stateViolations
 * per cluster, each line prefixed with its cluster), each VM of ours on a
 * cluster its name does not live on, and each name with VMs on two clusters.
 */
export function clusterViolations(states: ReadonlyMap<string, SimStateView>, desired: readonly ClusterDesired[]): string[] {
  const clusterOfName = new Map(desired.map((d) => [d.name, d.cluster]));
  const problems: string[] = [];
  const clustersOf = new Map<string, Set<string>>();
  for (const [cluster, state] of states) {
    for (const vm of state.vms.filter(ours)) {
      const name = vm.config.name ?? '';
      clustersOf.set(name, (clustersOf.get(name) ?? new Set()).add(cluster));
    }
    problems.push(...elsewhereViolations(cluster, state, clusterOfName));
    // A name living elsewhere is named once, above; its own cluster judges the rest.
    const own: SimStateView = { ...state, vms: state.vms.filter((vm) => (clusterOfName.get(vm.config.name ?? '') ?? cluster) === cluster) };
    problems.push(...stateViolations(own, desired.filter((d) => d.cluster === cluster)).map((line) => `${cluster}: ${line}`));
  }
  for (const [name, clusters] of clustersOf) if (clusters.size > 1) problems.push(`${name}: VMs of ours on ${clusters.size} clusters (${[...clusters].join(', ')})`);
  return problems;
}

/** Each name whose cluster at the end is not the one it was first recorded in. */
export function movedViolations(first: ReadonlyMap<string, string>, last: ReadonlyMap<string, string>): string[] {
  return [...first].flatMap(([name, cluster]) => {
    const now = last.get(name);
    return now !== undefined && now !== cluster ? [`${name}: recorded in cluster ${cluster}, now in ${now}`] : [];
  });
}

/** Each kept VM no longer on `cluster` with its VMID, name and uid: deleted, or made again. */
export function keptViolations(cluster: string, state: SimStateView, kept: readonly KeptVm[]): string[] {
  return kept.flatMap((want) => {
    const vm = state.vms.find((v) => v.vmid === want.vmid);
    if (vm !== undefined && vm.config.name === want.name && parseMark(vm.config.description)?.uid === want.uid) return [];
    const now = state.vms.filter((v) => v.config.name === want.name && ours(v)).map((v) => v.vmid);
    return [`${want.name}: VM ${want.vmid} on ${cluster} before it went away is gone${now.length > 0 ? ` (now VM ${now.join(', ')})` : ''}; nothing asked for it but present`];
  });
}

/** The VMs of ours on a cluster, running and fully made, of the names `keep` says. */
export function keptVms(state: SimStateView, keep: (name: string) => boolean): KeptVm[] {
  return state.vms.flatMap((vm) => {
    const uid = parseMark(vm.config.description)?.uid;
    const name = vm.config.name;
    return uid !== undefined && name !== undefined && vm.status === 'running' && !vm.cloning && keep(name) ? [{ name, vmid: vm.vmid, uid }] : [];
  });
}
