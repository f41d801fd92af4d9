// SPEC 15: Delete.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, RANGE, testConfig } from './harness.js';
import { rejection } from '../support/rejection.js';

const NAME = 'proxy-a';
const UID = 'd0d0d0d0-0000-4000-8000-000000000002';
const VMID = vmidForUid(UID, RANGE);
const SEED = `proxy-seeds:iso/${NAME}-seed.iso`;
const WRITES = new Set(['stop', 'destroy', 'deleteVolume', 'putConfig', 'clone', 'start', 'upload', 'resize']);

function twoNodes(): ReturnType<typeof harness> {
  const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }] });
  return harness({
    pve,
    config: testConfig([
      { name: 'a', template: 9001, isoStorage: 'proxy-seeds' },
      { name: 'b', template: 9002, isoStorage: 'proxy-seeds' },
    ]),
  });
}

describe('Delete (SPEC 15)', () => {
  it('stops, destroys with purge and unreferenced disks, then deletes the seed on the VM\'s node', async () => {
    const h = twoNodes();
    addOurVm(h.pve, NAME, UID, { node: 'b', status: 'running' });
    h.pve.addVolume('a', 'proxy-seeds', SEED);
    h.pve.addVolume('b', 'proxy-seeds', SEED);
    const result = await h.provider.delete({ name: NAME, uid: UID }, h.ctx);
    expect(result).to.deep.equal({ deleted: true, vmid: VMID, seedsDeleted: 1 });
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal(['stop', 'destroy', 'deleteVolume']);
    expect(h.pve.callsTo('destroy')[0]!.args).to.deep.equal(['b', VMID, { purge: true, destroyUnreferencedDisks: true }]);
    expect(h.pve.callsTo('deleteVolume')[0]!.args).to.deep.equal(['b', 'proxy-seeds', SEED]);
    expect(h.pve.vm(VMID)).to.equal(undefined);
    expect(h.pve.volumes('b', 'proxy-seeds')).to.deep.equal([]);
    expect(h.pve.volumes('a', 'proxy-seeds')).to.have.length(1);
  });

  it('a stopped VM is destroyed without a stop; without a uid any VM of ours with the name goes', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID);
    expect((await h.provider.delete({ name: NAME }, h.ctx)).deleted).to.equal(true);
    expect(h.pve.count('stop')).to.equal(0);
    expect(h.pve.count('destroy')).to.equal(1);
  });

  it('with no VM of ours left, deletes the seed on every configured node', async () => {
    const h = twoNodes();
    h.pve.addVolume('a', 'proxy-seeds', SEED);
    h.pve.addVolume('b', 'proxy-seeds', SEED);
    h.pve.addVolume('b', 'proxy-seeds', 'proxy-seeds:iso/proxy-b-seed.iso');
    const result = await h.provider.delete({ name: NAME, uid: UID }, h.ctx);
    expect(result).to.deep.equal({ deleted: false, seedsDeleted: 2 });
    expect(h.pve.volumes('a', 'proxy-seeds')).to.deep.equal([]);
    expect(h.pve.volumes('b', 'proxy-seeds').map((v) => v.volid)).to.deep.equal(['proxy-seeds:iso/proxy-b-seed.iso']);
  });

  it('never touches a VM that is not ours: another uid, no mark, or another name', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, 'another-uid', { vmid: 100001, status: 'running' });
    h.pve.addVm({ vmid: 100002, config: { name: NAME, description: 'made by hand' }, status: 'running' });
    addOurVm(h.pve, 'proxy-b', UID, { vmid: VMID, status: 'running' });
    const result = await h.provider.delete({ name: NAME, uid: UID }, h.ctx);
    expect(result.deleted).to.equal(false);
    expect(h.pve.methods().filter((m) => WRITES.has(m) && m !== 'deleteVolume')).to.deep.equal([]);
    expect([...h.pve.vms.keys()]).to.include.members([100001, 100002, VMID]);
    // Without a uid, the unmarked VM with our name is still not ours.
    await h.provider.delete({ name: NAME }, h.ctx);
    expect(h.pve.vm(100002)).to.not.equal(undefined);
    expect(h.pve.vm(100001)).to.equal(undefined);
  });

  it('deleting an old uid keeps the seed that the VM of ours with the new uid still boots from', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, 'uid-old', { vmid: 100001, status: 'running' });
    addOurVm(h.pve, NAME, 'uid-new', { vmid: 100002, status: 'running' });
    h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
    const result = await h.provider.delete({ name: NAME, uid: 'uid-old' }, h.ctx);
    expect(result).to.deep.equal({ deleted: true, vmid: 100001, seedsDeleted: 0 });
    expect(h.pve.vm(100001)).to.equal(undefined);
    expect(h.pve.vm(100002)).to.not.equal(undefined);
    expect(h.pve.volumes('pv1-1', 'proxy-seeds').map((v) => v.volid)).to.deep.equal([SEED]);
    // A repeat finds no VM of that uid and still keeps the seed.
    expect(await h.provider.delete({ name: NAME, uid: 'uid-old' }, h.ctx)).to.deep.equal({ deleted: false, seedsDeleted: 0 });
    expect(h.pve.volumes('pv1-1', 'proxy-seeds')).to.have.length(1);
  });

  it('a second delete succeeds', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running' });
    h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
    expect((await h.provider.delete({ name: NAME, uid: UID }, h.ctx)).deleted).to.equal(true);
    expect(await h.provider.delete({ name: NAME, uid: UID }, h.ctx)).to.deep.equal({ deleted: false, seedsDeleted: 0 });
  });

  it('a hibernated VM of ours is Permanent and untouched', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { config: { lock: 'suspended' } });
    const err = await rejection(h.provider.delete({ name: NAME, uid: UID }, h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect((err as PermanentError).reason).to.contain('hibernated');
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal([]);
  });

  it('a clone in progress at the uid\'s VMID (nameless, F8) is Transient, not absent (correction 1)', async () => {
    const h = harness();
    h.pve.addVm({ vmid: VMID, config: { lock: 'clone' }, cloning: true });
    expect(await rejection(h.provider.delete({ name: NAME, uid: UID }, h.ctx))).to.be.instanceOf(TransientError);
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal([]);
  });

  it('asks the caller before every write', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running' });
    const seq: string[] = [];
    for (const m of ['stop', 'destroy', 'deleteVolume'] as const) h.pve.on(m, () => void seq.push(m));
    await h.provider.delete({ name: NAME, uid: UID }, { ...h.ctx, beforeWrite: () => void seq.push('check') });
    expect(seq).to.deep.equal(['check', 'stop', 'check', 'destroy', 'check', 'deleteVolume']);
  });
  describe('a VM of ours someone protected (SPEC 28, audit 7.1)', () => {
    it('is Permanent before any write, naming the VM and what to clear; the VM still runs and its seed stays', async () => {
      const h = harness();
      addOurVm(h.pve, NAME, UID, { status: 'running', config: { protection: 1 } });
      h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
      const err = await rejection(h.provider.delete({ name: NAME, uid: UID }, h.ctx));
      expect(err).to.be.instanceOf(PermanentError);
      expect((err as PermanentError).reason).to.equal(
        `VM ${NAME} (vmid ${VMID} on pv1-1) is protected: clear its protection (qm set ${VMID} --protection 0, or Options > Protection in the GUI) and delete again`,
      );
      expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal([]);
      expect(h.pve.vm(VMID)?.status).to.equal('running');
      expect(h.pve.volumes('pv1-1', 'proxy-seeds')).to.have.length(1);
    });

    it("a clone whose create stopped before its config write keeps its template's protection: the delete clears it, then destroys", async () => {
      const h = harness();
      // The clone's config: our mark and name, the template's tags and flag, not yet our tag.
      addOurVm(h.pve, NAME, UID, { config: { tags: 'debian', protection: 1 } });
      h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
      expect(await h.provider.delete({ name: NAME, uid: UID }, h.ctx)).to.deep.equal({ deleted: true, vmid: VMID, seedsDeleted: 1 });
      expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal(['putConfig', 'destroy', 'deleteVolume']);
      expect(h.pve.callsTo('putConfig')[0]!.args.slice(0, 3)).to.deep.equal(['pv1-1', VMID, { delete: 'protection' }]);
      expect(h.pve.vm(VMID)).to.equal(undefined);
    });

    it('protected after its config was read: destroy\'s refusal is Permanent with the same words', async () => {
      const h = harness();
      addOurVm(h.pve, NAME, UID);
      h.pve.on('destroy', () => {
        h.pve.vm(VMID)!.config.protection = 1;
      });
      const err = await rejection(h.provider.delete({ name: NAME, uid: UID }, h.ctx));
      expect(err).to.be.instanceOf(PermanentError);
      expect((err as PermanentError).reason).to.contain(`VM ${NAME} (vmid ${VMID} on pv1-1) is protected: clear its protection`);
      expect(h.pve.count('destroy')).to.equal(1);
      expect(h.pve.vm(VMID)).to.not.equal(undefined);
    });

    it('protected while its destroy task waited: the task\'s exit is Permanent with the same words', async () => {
      const h = harness();
      addOurVm(h.pve, NAME, UID);
      // Set once the destroy is accepted, before its task ends (the wait lists the node's tasks).
      const protect = (): void => {
        const vm = h.pve.vm(VMID);
        if (vm && h.pve.count('destroy') > 0) vm.config.protection = 1;
      };
      h.pve.on('nodeTasks', protect);
      h.pve.on('taskStatus', protect);
      const err = await rejection(h.provider.delete({ name: NAME, uid: UID }, h.ctx));
      expect(err).to.be.instanceOf(PermanentError);
      expect((err as PermanentError).reason).to.contain(`VM ${NAME} (vmid ${VMID} on pv1-1) is protected: clear its protection`);
      expect(h.pve.vm(VMID)).to.not.equal(undefined);
    });
  });
});
