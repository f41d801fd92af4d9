// SPEC 12: Get when a read fails. Only Proxmox's own "does not exist" on
// the config or status read means NotFound; any other failure (a 500, a
// refused token, no route, a timeout) keeps its class, so a VM is never
// reported gone because Proxmox could not be read (issue 19). Also the
// words of each Transient and the fields of each answer.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import type { ClassifiedError } from '../../src/errors.js';
import { kindOf } from '../../src/proxmox/classify.js';
import { formatMark } from '../../src/provider/mark.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { addOurVm, harness, RANGE } from './harness.js';
import { rejection as failure } from '../support/rejection.js';

const NAME = 'proxy-a';
const UID = '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80';
const VMID = vmidForUid(UID, RANGE);
const ref = { name: NAME, uid: UID };

function timedOut(): Error {
  return Object.assign(new Error('Timeout awaiting response for 60000ms'), { code: 'ETIMEDOUT' });
}

describe('Get when a read fails (SPEC 12, SPEC 17)', () => {
  for (const read of ['getConfig', 'statusCurrent'] as const) {
    describe(`the ${read === 'getConfig' ? 'config' : 'status'} read`, () => {
      it('a 500 is Transient, not NotFound', async () => {
        const h = harness();
        addOurVm(h.pve, NAME, UID, { status: 'running' });
        h.pve.failNext(read, fakeErrors.injected('internal error'));
        const err = await failure(h.provider.get(ref, h.ctx));
        expect(err).to.be.instanceOf(TransientError);
        expect(err.message).to.equal('fake: internal error');
      });

      it('no route to the node (595) is Transient Unreachable', async () => {
        const h = harness();
        addOurVm(h.pve, NAME, UID, { status: 'running' });
        h.pve.failNext(read, fakeErrors.noRouteToHost());
        const err = await failure(h.provider.get(ref, h.ctx));
        expect(err).to.be.instanceOf(TransientError);
        expect(kindOf(err)).to.equal('Unreachable');
      });

      it('a timeout is Transient', async () => {
        const h = harness();
        addOurVm(h.pve, NAME, UID, { status: 'running' });
        h.pve.failNext(read, timedOut());
        const err = await failure(h.provider.get(ref, h.ctx));
        expect(err).to.be.instanceOf(TransientError);
        expect((err as ClassifiedError).reason).to.contain('did not answer in time');
      });

      it('a refused token keeps its class: Permanent', async () => {
        const h = harness();
        addOurVm(h.pve, NAME, UID, { status: 'running' });
        h.pve.failNext(read, fakeErrors.authFailed());
        expect(await failure(h.provider.get(ref, h.ctx))).to.be.instanceOf(PermanentError);
      });

      it("Proxmox's own does-not-exist is NotFound", async () => {
        const h = harness();
        addOurVm(h.pve, NAME, UID, { status: 'running' });
        h.pve.failNext(read, fakeErrors.configMissing('pv1-1', VMID));
        expect((await h.provider.get(ref, h.ctx)).state).to.equal('NotFound');
      });
    });
  }

  it('a busy resources entry says which name and why', async () => {
    const h = harness();
    h.pve.addVm({ vmid: VMID, config: { lock: 'clone' }, cloning: true });
    const err = await failure(h.provider.get(ref, h.ctx));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message.startsWith(`${NAME}: `), err.message).to.equal(true);
  });

  it('a lock in the config names the VM and the lock', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { config: { lock: 'migrate' } });
    // The resources entry shows no lock, so the config read meets it.
    h.pve.on('clusterResources', () => void (h.pve.vm(VMID)!.config.lock = undefined));
    h.pve.on('getConfig', () => void (h.pve.vm(VMID)!.config.lock = 'migrate'));
    const err = await failure(h.provider.get(ref, h.ctx));
    expect(err.message).to.equal(`${NAME}: VM ${VMID} holds lock 'migrate'`);
  });

  it('a mark without written-at-create answers no createdAt', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, NAME, UID, { status: 'stopped' });
    vm.config.description = formatMark(UID, new Date('2026-11-30T09:00:00Z')).split('\n').filter((l) => !l.startsWith('written-at-create')).join('\n');
    const seen = await h.provider.get(ref, h.ctx);
    expect(seen).to.deep.equal({ state: 'Stopped', providerId: `vms/${VMID}/${NAME}`, vmid: VMID, node: 'pv1-1', uid: UID });
  });

  it('a hibernated VM of ours answers the whole Stopped observation', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { config: { lock: 'suspended' } });
    h.pve.on('clusterResources', () => void (h.pve.vm(VMID)!.config.lock = undefined));
    h.pve.on('getConfig', () => void (h.pve.vm(VMID)!.config.lock = 'suspended'));
    expect(await h.provider.get(ref, h.ctx)).to.deep.equal({
      state: 'Stopped',
      providerId: `vms/${VMID}/${NAME}`,
      vmid: VMID,
      node: 'pv1-1',
      uid: UID,
      createdAt: '2026-11-30T09:00:00.000Z',
    });
    expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig']);
  });

  it('a running VM whose qmpstatus is running reads the agent; a paused one does not', async () => {
    const h = harness();
    const vm = addOurVm(h.pve, NAME, UID, { status: 'running' });
    vm.qmpstatus = 'paused';
    expect((await h.provider.get(ref, h.ctx)).state).to.equal('Stopped');
    expect(h.pve.methods()).to.deep.equal(['clusterResources', 'getConfig', 'statusCurrent']);
  });

  it('an agent that reports the VM stopped mid-read is Transient and says so', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running' });
    const stopped = fakeErrors.vmNotRunning(VMID);
    h.pve.failNext('agentInterfaces', stopped);
    const err = await failure(h.provider.get(ref, h.ctx));
    expect(err).to.be.instanceOf(TransientError);
    expect(err.message).to.equal(`${NAME}: VM ${VMID} stopped while it was being read`);
    expect(err.cause).to.equal(stopped);
  });

  it('any other agent failure is Transient, keeping the reason, and a Transient one is passed on as it is', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running' });
    h.pve.failNext('agentInterfaces', fakeErrors.forbiddenVolumeDelete('local'));
    const denied = (await failure(h.provider.get(ref, h.ctx))) as TransientError;
    expect(denied).to.be.instanceOf(TransientError);
    expect(denied.reason).to.contain('the API token lacks Datastore.Allocate on /storage/local');
    h.pve.failNext('agentInterfaces', fakeErrors.noRouteToHost());
    const unreachable = await failure(h.provider.get(ref, h.ctx));
    expect(kindOf(unreachable)).to.equal('Unreachable');
  });
});
