// SPEC 28 (issue 27, audit 3.3, 3.4): pvestatd names a config without a
// name `VM <vmid>` and keeps a destroyed VM's sample at its VMID for 5
// minutes, so /cluster/resources can show our VM under `VM <vmid>` or
// under the old VM's name. Get, Delete and the sweep read the config of
// such an entry at a VMID they know before judging it; never NotFound, a
// missed VM or a seed deleted from the listing alone. Only those entries
// are read.
import { expect } from 'chai';
import { vmidForUid } from '../../src/provider/vmid.js';
import { FakeProxmox, type FakeVm } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, RANGE, TAG, type Harness } from './harness.js';

const NAME = 'proxy-a';
const UID = '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80';
const VMID = vmidForUid(UID, RANGE);
const SEED = `proxy-seeds:iso/${NAME}-seed.iso`;

/** The fake with pvestatd's lag: a cycle only when the test runs one. */
function lagging(): Harness {
  return harness({ pve: new FakeProxmox({ statdEvery: Number.MAX_SAFE_INTEGER }) });
}

/** Our VM at vmid, which the listing shows as pvestatd last sampled `before` there. */
function ourVmBehind(h: Harness, before: { name?: string }, vmid = VMID): FakeVm {
  h.pve.addVm({ vmid, node: 'pv1-1', config: before.name === undefined ? {} : { name: before.name } });
  h.pve.statdCycle();
  return addOurVm(h.pve, NAME, UID, { vmid });
}

const listedName = async (h: Harness, vmid = VMID): Promise<string | undefined> =>
  (await h.pve.clusterResources('vm')).find((r) => r.vmid === vmid)?.name;

const STALE: [string, { name?: string }][] = [
  ['a clone sampled in its temporary config (`VM <vmid>`, audit 3.3)', {}],
  ["a reused VMID showing the destroyed VM's name (audit 3.4)", { name: 'someone-old' }],
];

describe('stale pvestatd samples at our VMIDs (SPEC 28)', () => {
  for (const [title, before] of STALE) {
    describe(title, () => {
      it('Get reads the config and answers Stopped, not NotFound', async () => {
        const h = lagging();
        ourVmBehind(h, before);
        expect(await listedName(h)).to.equal(before.name ?? `VM ${VMID}`);
        h.pve.calls.length = 0;
        const seen = await h.provider.get({ name: NAME, uid: UID }, h.ctx);
        expect(seen).to.include({ state: 'Stopped', vmid: VMID });
        expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig', 'statusCurrent']);
      });

      it('Delete with the uid destroys it and its seed: deleted, never the seeds alone', async () => {
        const h = lagging();
        ourVmBehind(h, before);
        h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
        expect(await h.provider.delete({ name: NAME, uid: UID }, h.ctx)).to.deep.equal({ deleted: true, vmid: VMID, seedsDeleted: 1 });
        expect(h.pve.vm(VMID)).to.equal(undefined);
      });

      it('the sweep listing reads it and reports it under its real name', async () => {
        const h = lagging();
        const vm = ourVmBehind(h, before);
        // Before its config write: no tag yet (SPEC 11); its name is the registry's.
        vm.config.tags = 'debian';
        const listed = await h.provider.listTaggedOrNamed([NAME], h.ctx, [{ name: NAME, uid: UID, vmid: VMID, node: 'pv1-1' }]);
        expect(listed.map((v) => ({ vmid: v.vmid, name: v.name, uid: v.uid, ours: v.ours }))).to.deep.equal([{ vmid: VMID, name: NAME, uid: UID, ours: true }]);
      });
    });
  }

  it('Delete without a uid finds our VM behind `VM <vmid>` in our range', async () => {
    const h = lagging();
    ourVmBehind(h, {});
    expect((await h.provider.delete({ name: NAME }, h.ctx)).deleted).to.equal(true);
  });

  it("Delete without a uid finds our VM behind another name at the registry's last-known VMID", async () => {
    const h = lagging();
    ourVmBehind(h, { name: 'someone-old' });
    h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
    expect(await h.provider.delete({ name: NAME }, h.ctx)).to.deep.equal({ deleted: false, seedsDeleted: 1 }, 'without the hint the name alone cannot find it');
    const again = lagging();
    ourVmBehind(again, { name: 'someone-old' });
    again.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
    expect(await again.provider.delete({ name: NAME, knownVmid: VMID }, again.ctx)).to.deep.equal({ deleted: true, vmid: VMID, seedsDeleted: 1 });
  });

  it("Get finds our VM behind another name at the registry's last-known VMID off the uid's chain", async () => {
    const h = lagging();
    // Our VM one past a gap in the chain (the VM that pushed it there is gone), its sample stale.
    ourVmBehind(h, { name: 'someone-old' }, VMID + 1);
    expect((await h.provider.get({ name: NAME, uid: UID }, h.ctx)).state).to.equal('NotFound');
    expect((await h.provider.get({ name: NAME, uid: UID, knownVmid: VMID + 1 }, h.ctx)).state).to.equal('Stopped');
  });

  it('Get passes over an unsure entry with our name but another uid to ours further on', async () => {
    const h = lagging();
    h.pve.addVm({ vmid: VMID, node: 'pv1-1', config: { name: 'someone-older' } });
    h.pve.addVm({ vmid: VMID + 1, node: 'pv1-1', config: { name: 'someone-old' } });
    h.pve.statdCycle();
    addOurVm(h.pve, NAME, 'another-uid', { vmid: VMID });
    addOurVm(h.pve, NAME, UID, { vmid: VMID + 1 });
    expect(await h.provider.get({ name: NAME, uid: UID }, h.ctx)).to.include({ state: 'Stopped', vmid: VMID + 1 });
  });

  describe('what is read, and what not', () => {
    it('a foreign VM at our VMID with nothing after it: one config read, then NotFound', async () => {
      const h = lagging();
      h.pve.addVm({ vmid: VMID, node: 'pv1-1', config: { name: 'theirs' } });
      h.pve.statdCycle();
      expect((await h.provider.get({ name: NAME, uid: UID }, h.ctx)).state).to.equal('NotFound');
      expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig']);
    });

    it('a foreign VM at our VMID and ours after it under our name: the foreign config is not read', async () => {
      const h = lagging();
      h.pve.addVm({ vmid: VMID, node: 'pv1-1', config: { name: 'theirs' } });
      addOurVm(h.pve, NAME, UID, { vmid: VMID + 1 });
      h.pve.statdCycle();
      expect(await h.provider.get({ name: NAME, uid: UID }, h.ctx)).to.include({ state: 'Stopped', vmid: VMID + 1 });
      expect(h.pve.callsTo('getConfig').map((c) => c.args[1])).to.deep.equal([VMID + 1]);
    });

    it('our VM under a current name: four calls for a running Get, as before (SPEC 12)', async () => {
      const h = lagging();
      addOurVm(h.pve, NAME, UID, { status: 'running' });
      h.pve.statdCycle();
      await h.provider.get({ name: NAME, uid: UID, knownVmid: VMID }, h.ctx);
      expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig', 'statusCurrent', 'agentInterfaces']);
    });

    it('the sweep: a known VM under its own name and tag is confirmed unread; a foreign VM outside our VMIDs is not read', async () => {
      const h = lagging();
      addOurVm(h.pve, NAME, UID);
      h.pve.addVm({ vmid: 4242, node: 'pv1-1', config: { name: 'theirs' } });
      h.pve.addVm({ vmid: 4243, node: 'pv1-1', config: {} });
      h.pve.statdCycle();
      const listed = await h.provider.listTaggedOrNamed([NAME], h.ctx, [{ name: NAME, uid: UID, vmid: VMID, node: 'pv1-1' }]);
      expect(listed.map((v) => v.vmid)).to.deep.equal([VMID]);
      expect(h.pve.count('getConfig')).to.equal(0);
      expect(await listedName(h, 4243)).to.equal('VM 4243');
    });

    it('nameless foreign VMs with a disk in our range are never read; a diskless `VM <vmid>` (a temporary config) is (SPEC 26)', async () => {
      const h = lagging();
      const foreign = Array.from({ length: 500 }, (_, i) => RANGE.min + 1000 + i).filter((v) => v !== VMID);
      for (const vmid of foreign) h.pve.addVm({ vmid, node: 'pv1-1', config: { scsi0: `local-lvm:vm-${vmid}-disk-0,size=4G` } });
      h.pve.addVm({ vmid: RANGE.min + 7, node: 'pv1-1', config: {} });
      addOurVm(h.pve, NAME, UID);
      h.pve.statdCycle();
      expect(await listedName(h, foreign[0])).to.equal(`VM ${String(foreign[0])}`);
      await h.provider.listTaggedOrNamed([NAME, 'proxy-b'], h.ctx, [{ name: NAME, uid: UID, vmid: VMID, node: 'pv1-1' }]);
      await h.provider.findByNames([NAME, 'proxy-b'], h.ctx);
      h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
      await h.provider.delete({ name: NAME, uid: UID }, h.ctx);
      const read = h.pve.callsTo('getConfig').map((c) => Number(c.args[1]));
      expect(read.filter((v) => foreign.includes(v)), 'foreign VMs read').to.deep.equal([]);
      expect(read.filter((v) => v === RANGE.min + 7), 'the diskless one, once per look-up').to.have.length(3);
    });

    it('the sweep: `VM <vmid>` in our range whose config cannot be read stays nameless and unknown, so no seed is judged by it', async () => {
      const h = lagging();
      h.pve.addVm({ vmid: VMID, node: 'pv1-1', config: { tags: TAG } });
      h.pve.statdCycle();
      h.pve.on('getConfig', () => {
        throw new Error('connect ECONNREFUSED');
      });
      const listed = await h.provider.listTaggedOrNamed([NAME], h.ctx);
      expect(listed).to.have.length(1);
      expect(listed[0]).to.include({ vmid: VMID, ours: 'unknown' }).and.not.have.property('name');
    });
  });
});
