// SPEC 13 steps 1 and 3, correction 2: who holds a VMID or a name
// (src/provider/ownership.ts), asked directly. The holder of a VMID is the
// cluster entry at that VMID, on its node, and only a QEMU VM; a lock is
// waited out; our name with a foreign mark and a hibernated VM of ours are
// Permanent, with words an operator can act on (issue 19).
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { findOurs, holderOfVmid, judge } from '../../src/provider/ownership.js';
import { MARK_FIRST_LINE } from '../../src/provider/mark.js';
import { NameHeldByOtherUidError } from '../../src/provider/name-held.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { addOurVm, harness } from './harness.js';
import { rejection as failure } from '../support/rejection.js';

const NAME = 'web-1';
const UID = 'u-1';
const spec = { name: NAME, uid: UID };

function twoNodes(): ReturnType<typeof harness> {
  return harness({ pve: new FakeProxmox({ nodes: [{ name: 'pv1-1' }, { name: 'pv1-2' }] }) });
}

describe('ownership (SPEC 13, correction 2)', () => {
  describe('holderOfVmid', () => {
    it('judges the entry at that VMID on its own node, not the first entry listed', async () => {
      const h = twoNodes();
      h.pve.addVm({ vmid: 100, node: 'pv1-1', config: { name: 'first' } });
      addOurVm(h.pve, NAME, UID, { vmid: 100200, node: 'pv1-2' });
      const holder = await holderOfVmid(h.deps, h.ctx, spec, 100200);
      expect(holder.kind).to.equal('ours');
      expect(holder.kind === 'ours' ? { node: holder.vm.node, vmid: holder.vm.vmid } : undefined).to.deep.equal({ node: 'pv1-2', vmid: 100200 });
      expect(h.pve.callsTo('getConfig').map((c) => c.args)).to.deep.equal([['pv1-2', 100200]]);
    });

    it('a VM with another name at that VMID is other', async () => {
      const h = twoNodes();
      h.pve.addVm({ vmid: 100, node: 'pv1-1', config: { name: NAME } });
      h.pve.addVm({ vmid: 100200, node: 'pv1-2', config: { name: 'someone-else' } });
      expect((await holderOfVmid(h.deps, h.ctx, spec, 100200)).kind).to.equal('other');
    });

    it('no entry at that VMID is gone, whatever else is listed', async () => {
      const h = twoNodes();
      addOurVm(h.pve, NAME, UID, { vmid: 100100, node: 'pv1-1' });
      expect((await holderOfVmid(h.deps, h.ctx, spec, 100200)).kind).to.equal('gone');
      expect(h.pve.count('getConfig')).to.equal(0);
    });

    it('an LXC container at that VMID is other, and its config is never read as a VM', async () => {
      const h = harness();
      h.pve.addVm({ vmid: 100200, kind: 'lxc', config: { name: NAME } });
      expect((await holderOfVmid(h.deps, h.ctx, spec, 100200)).kind).to.equal('other');
      expect(h.pve.count('getConfig')).to.equal(0);
    });
  });

  describe('judge', () => {
    it('adopts our VM and answers its node, VMID and config', async () => {
      const h = harness();
      addOurVm(h.pve, NAME, UID, { vmid: 100200 });
      const holder = await judge(h.deps, h.ctx, spec, 'pv1-1', 100200);
      expect(holder.kind).to.equal('ours');
      if (holder.kind === 'ours') expect(holder.vm).to.deep.include({ node: 'pv1-1', vmid: 100200 });
      if (holder.kind === 'ours') expect(holder.vm.config.name).to.equal(NAME);
    });

    it('waits out a lock, then decides on the config it ends with', async () => {
      const h = harness();
      const vm = addOurVm(h.pve, NAME, UID, { vmid: 100200, config: { lock: 'clone' } });
      h.pve.on('getConfig', () => {
        if (h.pve.count('getConfig') === 3) delete vm.config.lock;
      });
      expect((await judge(h.deps, h.ctx, spec, 'pv1-1', 100200)).kind).to.equal('ours');
      expect(h.pve.count('getConfig')).to.equal(3);
    });

    it('a VM gone while its lock is waited out is gone; another failure is passed on', async () => {
      const h = harness();
      addOurVm(h.pve, NAME, UID, { vmid: 100200, config: { lock: 'clone' } });
      h.pve.on('getConfig', () => {
        if (h.pve.count('getConfig') === 2) h.pve.vms.delete(100200);
      });
      expect((await judge(h.deps, h.ctx, spec, 'pv1-1', 100200)).kind).to.equal('gone');
      const other = harness();
      addOurVm(other.pve, NAME, UID, { vmid: 100200 });
      other.pve.failNext('getConfig', fakeErrors.injected('broken'));
      expect(await failure(judge(other.deps, other.ctx, spec, 'pv1-1', 100200))).to.be.instanceOf(TransientError);
    });

    it('a hibernated VM of ours is Permanent, saying it will not touch the saved state', async () => {
      const h = harness();
      addOurVm(h.pve, NAME, UID, { vmid: 100200, config: { lock: 'suspended' } });
      const err = (await failure(judge(h.deps, h.ctx, spec, 'pv1-1', 100200))) as PermanentError;
      expect(err).to.be.instanceOf(PermanentError);
      expect(err.message).to.equal(
        `VM 100200 (${NAME}) is ours but hibernated (lock: suspended); resume or delete it in Proxmox, the service will not touch its saved state`,
      );
      expect(h.pve.count('getConfig')).to.equal(1);
    });

    it('a hibernated VM with another name is other', async () => {
      const h = harness();
      h.pve.addVm({ vmid: 100200, config: { name: 'someone-else', lock: 'suspended' } });
      expect((await judge(h.deps, h.ctx, spec, 'pv1-1', 100200)).kind).to.equal('other');
    });

    it('our name with no mark, a mark without uid, or another uid is Permanent, naming what is wrong', async () => {
      const h = harness();
      h.pve.addVm({ vmid: 100200, config: { name: NAME, description: 'made by hand' } });
      expect((await failure(judge(h.deps, h.ctx, spec, 'pv1-1', 100200))).message).to.equal(
        `VM 100200 is named ${NAME} but carries no pve-provisioner mark; rename or remove it, the service will not take it over`,
      );
      h.pve.vm(100200)!.config.description = `${MARK_FIRST_LINE}\nwritten-at-create: 2026-11-30T09:00:00.000Z`;
      expect((await failure(judge(h.deps, h.ctx, spec, 'pv1-1', 100200))).message).to.equal(
        `VM 100200 is named ${NAME} but is marked with another uid (none); rename or remove it, the service will not take it over`,
      );
      h.pve.vm(100200)!.config.description = `${MARK_FIRST_LINE}\nuid: u-2`;
      const held = await failure(judge(h.deps, h.ctx, spec, 'pv1-1', 100200));
      expect(held).to.be.instanceOf(NameHeldByOtherUidError);
      expect((held as NameHeldByOtherUidError).otherUid).to.equal('u-2');
    });
  });

  describe('findOurs', () => {
    it('finds our VM by name anywhere, skipping templates, other names and containers', async () => {
      const h = twoNodes();
      h.pve.addVm({ vmid: 9000, node: 'pv1-1', config: { name: NAME, template: 1 } });
      h.pve.addVm({ vmid: 100, node: 'pv1-1', kind: 'lxc', config: { name: NAME } });
      h.pve.addVm({ vmid: 101, node: 'pv1-1', config: { name: 'other' } });
      addOurVm(h.pve, NAME, UID, { vmid: 100300, node: 'pv1-2' });
      const found = await findOurs(h.deps, h.ctx, spec);
      expect(found && { node: found.node, vmid: found.vmid }).to.deep.equal({ node: 'pv1-2', vmid: 100300 });
      expect(h.pve.callsTo('getConfig').map((c) => c.args)).to.deep.equal([['pv1-2', 100300]]);
    });

    it('no VM of our name is undefined', async () => {
      const h = harness();
      h.pve.addVm({ vmid: 101, config: { name: 'other' } });
      expect(await findOurs(h.deps, h.ctx, spec)).to.equal(undefined);
    });

    it('two VMs of ours under one name is Transient, naming both (a delete removes them)', async () => {
      const h = harness();
      addOurVm(h.pve, NAME, UID, { vmid: 100300 });
      addOurVm(h.pve, NAME, UID, { vmid: 100301 });
      const err = await failure(findOurs(h.deps, h.ctx, spec));
      expect(err).to.be.instanceOf(TransientError);
      expect(err.message).to.equal(`two VMs of ours are named ${NAME} (100300, 100301); a delete will remove them`);
    });
  });
});
