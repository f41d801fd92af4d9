// The several-clusters chaos checker (SPEC 32) must itself catch what it
// guards: a name with VMs on two clusters, a VM on a cluster its name does
// not live on, a name moved to another cluster, and a VM of the away
// cluster deleted or made again.
import { expect } from 'chai';
import { clusterViolations, keptViolations, keptVms, movedViolations } from './cluster-invariants.js';
import type { SimStateView, SimVmView } from './invariants.js';

const mark = (uid: string): string => `managed-by: pve-provisioner\nuid: ${uid}\ncluster: x\nwritten-at-create: 2026-11-30T12:00:00Z`;
const vm = (vmid: number, name: string, uid: string, status = 'running'): SimVmView => ({ vmid, node: 'pve1', status, cloning: false, config: { name, description: mark(uid) } });
const state = (...vms: SimVmView[]): SimStateView => ({ vms, nodes: [] });

describe('several-clusters chaos checker (SPEC 32)', () => {
  it('passes each name on its own cluster, the same VMID on both for different names', () => {
    const states = new Map([
      ['east', state(vm(100123, 'a', 'u1'), { vmid: 100, node: 'pve1', status: 'running', cloning: false, config: { name: 'app-100' } })],
      ['west', state(vm(100123, 'b', 'u1'))],
    ]);
    expect(
      clusterViolations(states, [
        { name: 'a', state: 'present', uid: 'u1', cluster: 'east' },
        { name: 'b', state: 'present', uid: 'u1', cluster: 'west' },
        { name: 'c', state: 'absent', cluster: 'west' },
      ]),
    ).to.deep.equal([]);
  });

  it('names a VM on a cluster its name does not live on, a name on two clusters, and each cluster\'s own breaks', () => {
    const states = new Map([
      ['east', state(vm(100123, 'a', 'u1'), vm(100200, 'b', 'u2'))],
      ['west', state(vm(100300, 'b', 'u2'), vm(100400, 'c', 'u3'))],
    ]);
    expect(
      clusterViolations(states, [
        { name: 'a', state: 'present', uid: 'u1', cluster: 'east' },
        { name: 'b', state: 'present', uid: 'u2', cluster: 'west' },
        { name: 'c', state: 'absent', cluster: 'west' },
      ]),
    ).to.deep.equal(['b: lives on west, but VM 100200 of ours is on east', 'west: c: desired absent, but VM 100400 is there', 'b: VMs of ours on 2 clusters (east, west)']);
  });

  it('names a name whose cluster changed', () => {
    expect(movedViolations(new Map([['a', 'east'], ['b', 'west']]), new Map([['a', 'east'], ['b', 'east']]))).to.deep.equal(['b: recorded in cluster west, now in east']);
  });

  it('names a kept VM deleted, or made again at another VMID or with another uid', () => {
    const before = state(vm(100123, 'a', 'u1'), vm(100200, 'b', 'u2'), vm(100300, 'c', 'u3'), vm(100400, 'd', 'u4', 'stopped'), { ...vm(100500, 'e', 'u5'), cloning: true });
    const kept = keptVms(before, (name) => name !== 'c');
    expect(kept.map((k) => k.name), 'running, fully made, asked for').to.deep.equal(['a', 'b']);
    expect(keptViolations('west', state(vm(100123, 'a', 'u1'), vm(100201, 'b', 'u2')), kept)).to.deep.equal([
      'b: VM 100200 on west before it went away is gone (now VM 100201); nothing asked for it but present',
    ]);
    expect(keptViolations('west', state(vm(100123, 'a', 'u9')), kept)).to.have.length(2);
  });
});
