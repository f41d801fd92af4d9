// SPEC 31: the stop a lease's expiry runs (onExpiry stop). The VM of the
// name and uid is stopped and kept, with its disks and seed, so a create of
// the same spec can start it again; a protected VM is stopped (protection
// guards destroy, not stop); a hibernated one is stopped already and its
// saved state is left alone, but it is still there (never "not found").
import { expect } from 'chai';
import { vmidForUid } from '../../src/provider/vmid.js';
import { addOurVm, harness, RANGE } from './harness.js';

const NAME = 'proxy-a';
const UID = 'd0d0d0d0-0000-4000-8000-000000000031';
const OTHER_UID = 'd0d0d0d0-0000-4000-8000-000000000032';
const VMID = vmidForUid(UID, RANGE);
const SEED = `proxy-seeds:iso/${NAME}-seed.iso`;
const WRITES = new Set(['stop', 'destroy', 'deleteVolume', 'putConfig', 'clone', 'start', 'upload', 'resize', 'suspend']);

describe('Stop at a lease\'s expiry (SPEC 31)', () => {
  it('stops a running VM of the name and uid and keeps it, its disks and its seed', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running' });
    h.pve.addVolume('pv1-1', 'proxy-seeds', SEED);
    const result = await h.provider.stop({ name: NAME, uid: UID }, h.ctx);
    expect(result).to.deep.include({ stopped: true, vmid: VMID });
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal(['stop']);
    expect(h.pve.vm(VMID)).to.not.equal(undefined);
    expect(h.pve.volumes('pv1-1', 'proxy-seeds')).to.have.length(1);
  });

  it('a stopped VM is left as it is and still reported there', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID);
    expect(await h.provider.stop({ name: NAME, uid: UID }, h.ctx)).to.deep.include({ stopped: false, vmid: VMID });
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal([]);
  });

  it('a protected VM is stopped, its protection kept (not Permanent as a delete is)', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running', config: { protection: 1 } });
    expect(await h.provider.stop({ name: NAME, uid: UID }, h.ctx)).to.deep.include({ stopped: true, vmid: VMID });
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal(['stop']);
  });

  it('a hibernated VM is stopped already: no write, and reported there (its VMID), not as nothing to stop', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { config: { lock: 'suspended' } });
    expect(await h.provider.stop({ name: NAME, uid: UID }, h.ctx)).to.deep.include({ stopped: false, vmid: VMID });
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal([]);
  });

  it('a VM of the name with another uid is not this lease\'s: untouched, nothing to stop', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, OTHER_UID, { status: 'running' });
    expect(await h.provider.stop({ name: NAME, uid: UID }, h.ctx)).to.deep.equal({ stopped: false });
    expect(h.pve.methods().filter((m) => WRITES.has(m))).to.deep.equal([]);
  });
});
