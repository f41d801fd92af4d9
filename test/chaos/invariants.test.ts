// The chaos suite's end-state checker (SPEC 22) must itself catch what it
// guards: a name with two VMs, a VM that should be gone, a seed without its
// VM, and a seed left on another node than its VM.
import { expect } from 'chai';
import { foreignViolations, stateViolations, type SimStateView, type SimVmView } from './invariants.js';

const mark = (uid: string): string => `managed-by: pve-provisioner\nuid: ${uid}\nwritten-at-create: 2026-11-30T12:00:00Z`;
const vm = (vmid: number, node: string, name: string, uid: string): SimVmView => ({ vmid, node, status: 'running', cloning: false, config: { name, description: mark(uid) } });
const seeds = (node: string, ...names: string[]): SimStateView['nodes'][number] => ({
  node,
  storages: [{ storage: 'proxy-seeds', volumes: names.map((n) => ({ volid: `proxy-seeds:iso/${n}-seed.iso`, content: 'iso' })) }],
});

describe('chaos invariants checker (SPEC 22)', () => {
  it('passes a state where every name is as desired and every seed sits beside its VM', () => {
    const state: SimStateView = { vms: [vm(100, 'a', 'web', 'u1'), vm(101, 'b', 'db', 'u2')], nodes: [seeds('a', 'web'), seeds('b', 'db')] };
    expect(stateViolations(state, [{ name: 'web', state: 'present', uid: 'u1' }, { name: 'db', state: 'present', uid: 'u2' }, { name: 'old', state: 'absent' }])).to.deep.equal([]);
  });

  it('names each broken invariant', () => {
    const state: SimStateView = {
      vms: [vm(100, 'a', 'web', 'u1'), vm(101, 'b', 'web', 'u1'), vm(102, 'a', 'gone', 'u3'), vm(103, 'b', 'db', 'u2')],
      nodes: [seeds('a', 'web', 'lost', 'db'), seeds('b')],
    };
    expect(stateViolations(state, [{ name: 'web', state: 'present', uid: 'u1' }, { name: 'gone', state: 'absent' }, { name: 'db', state: 'present', uid: 'u2' }])).to.deep.equal([
      'web: 2 VMs (100, 101)',
      'gone: desired absent, but VM 102 is there',
      'seed proxy-seeds:iso/lost-seed.iso on a has no VM lost (desired unknown to the registry)',
      'seed proxy-seeds:iso/db-seed.iso on a has no VM db on its node (VM on b) (desired present)',
    ]);
  });

  it('names a planted foreign VM that was touched or removed, and a VMID held twice (SPEC 23)', () => {
    const foreign = [
      { vmid: 200, node: 'b', name: 'foreign-0' },
      { vmid: 201, node: 'b', name: 'foreign-4' },
      { vmid: 202, node: 'b', name: 'foreign-8' },
    ];
    const kept: SimVmView = { vmid: 200, node: 'b', status: 'running', cloning: false, config: { name: 'foreign-0' } };
    const taken = vm(201, 'b', 'foreign-4', 'u9');
    const state: SimStateView = { vms: [kept, taken, vm(100, 'a', 'web', 'u1'), vm(100, 'b', 'web', 'u1')], nodes: [] };
    expect(foreignViolations(state, foreign)).to.deep.equal([
      'foreign VM 201 (foreign-4) on b was changed: now foreign-4 on b',
      'foreign VM 202 (foreign-8) on b is gone',
      'the cluster holds VMID 100 twice',
    ]);
    expect(foreignViolations({ vms: [kept], nodes: [] }, [foreign[0]!])).to.deep.equal([]);
  });
});
