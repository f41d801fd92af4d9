// The chaos suite's end-state checker (SPEC 22) must itself catch what it
// guards: a name with two VMs, a VM that should be gone, a seed without its
// VM, and a seed left on another node than its VM.
import { expect } from 'chai';
import { foreignViolations, leaseViolations, stateViolations, type SimStateView, type SimVmView } from './invariants.js';
import { holdViolations } from './tenant-holds.js';

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

describe('chaos lease invariant (SPEC 31)', () => {
  const span = (over: Partial<Parameters<typeof leaseViolations>[0][number]> = {}) => ({ name: 'web', version: 1, setAt: 0, expiresAt: 10_000, until: Infinity, renewed: false, ...over });
  const held = (at: number, ...names: string[]) => ({ at, held: new Set(names) });

  it('passes a VM ended within the bound, and one whose name got a newer intent first', () => {
    expect(leaseViolations([span()], [held(5_000, 'web'), held(12_000, 'web'), held(20_000)], [], 4_000)).to.deep.equal([]);
    expect(leaseViolations([span({ until: 11_000 })], [held(20_000, 'web')], [], 4_000)).to.deep.equal([]);
  });

  it('names a VM alive past the bound, an expiry before its time, and a renewed VM ended early', () => {
    const renewed = [span({ until: 8_000, renewed: true }), span({ version: 2, setAt: 8_000, expiresAt: 60_000 })];
    expect(leaseViolations([span()], [held(15_000, 'web')], [], 4_000)).to.deep.equal(['web: VM alive 5.0 s after its lease (version 1) expired; bound 4.0 s']);
    expect(leaseViolations(renewed, [], [{ jobId: 'delete-web-3', name: 'web', leaseVersion: 1, expiredAt: 10_000, recordedAt: 10_500 }], 4_000)).to.deep.equal([
      'web: job delete-web-3 ended the VM on lease version 1, renewed to version 2 before it',
    ]);
    expect(leaseViolations([span()], [], [{ jobId: 'stop-web-2', name: 'web', leaseVersion: 1, expiredAt: 10_000, recordedAt: 9_000 }], 4_000)).to.deep.equal([
      'web: job stop-web-2 ended the VM 1000 ms before its lease expired',
    ]);
  });
});

describe('chaos tenant holds invariant (SPEC 34)', () => {
  const hold = (tenant: string, cores: number): string => JSON.stringify({ tenant, vms: 1, cores, memoryMiB: 1024, diskGiB: 4 });

  it('passes holds that are exactly the VMs of ours and the present names, with sums that add up; a pool VM holds nothing', () => {
    const state: SimStateView = { vms: [vm(100, 'a', 'web', 'u1'), vm(101, 'a', 'pvep-pool-web-1', 'm1')], nodes: [] };
    const holds = { 'web u1': hold('acme', 2), 'db u2': hold('acme', 1) };
    const sums = { 'acme vms': '2', 'acme cores': '3', 'acme memoryMiB': '2048', 'acme diskGiB': '8' };
    expect(holdViolations(state, holds, sums, [{ name: 'web', state: 'present', uid: 'u1' }, { name: 'db', state: 'present', uid: 'u2' }])).to.deep.equal([]);
  });

  it('names a hold left behind, a VM that holds nothing, and a sum that drifted', () => {
    const state: SimStateView = { vms: [vm(100, 'a', 'web', 'u1'), vm(102, 'b', 'api', 'u3')], nodes: [] };
    const holds = { 'web u1': hold('acme', 2), 'gone u9': hold('acme', 1) };
    const sums = { 'acme vms': '1', 'acme cores': '3', 'acme memoryMiB': '2048', 'acme diskGiB': '8' };
    expect(holdViolations(state, holds, sums, [{ name: 'web', state: 'present', uid: 'u1' }, { name: 'gone', state: 'absent' }, { name: 'api', state: 'present', uid: 'u3' }])).to.deep.equal([
      'hold of gone u9 left: no VM of that name and uid, and the name is not present with it',
      'VM 102 (api u3) holds no quota',
      'tenant sum acme vms is 1, its holds add up to 2',
    ]);
  });
});
