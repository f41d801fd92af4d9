// SPEC 1, SPEC 13: what a create tells the job log (Bull Board shows where
// a job is from these lines), what it answers without waitForAddress, and
// the refusals whose words say what to fix (issue 19).
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import type { CreateSpec } from '../../src/provider/types.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { addOurVm, harness, RANGE, sizedLike, testConfig } from './harness.js';
import { rejection as failure } from '../support/rejection.js';

const NAME = 'proxy-a';
const UID = 'u-1';
const VMID = vmidForUid(UID, RANGE);

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: NAME, uid: UID, cores: 4, memoryMiB: 4096, diskGiB: 10, waitForAddress: true, ...over };
}

describe('Create: the job log and the answers (SPEC 1, SPEC 13)', () => {
  it('a fresh create writes one line per step, naming the VM, the node and what was done', async () => {
    const h = harness();
    const result = await h.provider.create(spec(), h.ctx);
    const { address } = result;
    expect(h.lines).to.deep.equal([
      `cloned template 9001 on node pv1-1 to VM ${VMID} on pv1-1`,
      `uploaded proxy-seeds:iso/${NAME}-seed.iso (51200 bytes) on pv1-1`,
      `configured VM ${VMID}: cores=4 memory=4096 agent=1 tags=debian;pve_provisioner ide2=proxy-seeds:iso/${NAME}-seed.iso,media=cdrom`,
      `grew scsi0 of VM ${VMID} to 10 GiB`,
      `started VM ${VMID}`,
      `VM ${VMID} is running`,
      `VM ${VMID} reports address ${address ?? ''}`,
    ]);
  });

  it('a create run again on a running VM of ours says so, and only waits', async () => {
    const h = harness();
    await h.provider.create(spec(), h.ctx);
    h.lines.length = 0;
    const before = h.pve.methods().length;
    const steps: string[] = [];
    await h.provider.create(spec(), { ...h.ctx, progress: (step) => void steps.push(step) });
    expect(h.lines.slice(0, 3)).to.deep.equal([
      `found VM ${VMID} of ours on pv1-1; going on from where it stopped`,
      `VM ${VMID} already runs; seed, config and disk were done before`,
      `VM ${VMID} is running`,
    ]);
    expect(steps).to.deep.equal(['cloned', 'seeded', 'configured', 'resized', 'started', 'running', 'address']);
    expect(h.pve.methods().slice(before).filter((m) => ['upload', 'putConfig', 'resize', 'start'].includes(m))).to.deep.equal([]);
  });

  it('a stopped VM of ours is configured and started again', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'stopped' });
    await h.provider.create(spec({ waitForAddress: false }), h.ctx);
    expect(h.pve.methods().filter((m) => ['upload', 'putConfig', 'start'].includes(m))).to.deep.equal(['upload', 'putConfig', 'start']);
  });

  it('a boot disk already as large as asked is not resized, and the log says how large it is', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'stopped', config: { scsi0: 'local-lvm:vm-1-disk-0,size=12G', boot: 'order=scsi0' } });
    await h.provider.create(spec({ waitForAddress: false }), h.ctx);
    expect(h.lines).to.include(`VM ${VMID}: scsi0 is already 12.0 GiB; not resized`);
    expect(h.pve.count('resize')).to.equal(0);
  });

  it('a disk exactly the size asked is not resized; one byte short is', async () => {
    const exact = harness();
    addOurVm(exact.pve, NAME, UID, { status: 'stopped', config: { scsi0: 'local-lvm:vm-1-disk-0,size=10G', boot: 'order=scsi0' } });
    await exact.provider.create(spec({ waitForAddress: false }), exact.ctx);
    expect(exact.pve.count('resize')).to.equal(0);
    const short = harness();
    addOurVm(short.pve, NAME, UID, { status: 'stopped', config: { scsi0: 'local-lvm:vm-1-disk-0,size=10239M', boot: 'order=scsi0' } });
    await short.provider.create(spec({ waitForAddress: false }), short.ctx);
    expect(short.pve.callsTo('resize').map((c) => c.args.slice(2, 4))).to.deep.equal([['scsi0', '10G']]);
  });

  it('a VM with no boot disk of known size is not resized, and the log says so', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'stopped', config: { scsi0: undefined, boot: 'order=net0' } });
    await h.provider.create(spec({ waitForAddress: false }), h.ctx);
    expect(h.lines).to.include(`VM ${VMID}: no boot disk with a known size; not resized`);
    expect(h.pve.count('resize')).to.equal(0);
  });

  it('without waitForAddress the answer is Provisioning with the VM, and no address', async () => {
    const h = harness();
    const result = await h.provider.create(spec({ waitForAddress: false }), h.ctx);
    expect(result).to.deep.equal({ providerId: `vms/${VMID}/${NAME}`, vmid: VMID, node: 'pv1-1', uid: UID, state: 'Provisioning', createdAt: '2026-11-30T10:00:00.000Z', image: 'default', source: { vmid: 9001, node: 'pv1-1' } });
  });

  it("createdAt is the mark's time, else now", async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running', config: sizedLike(spec()) });
    expect((await h.provider.create(spec({ waitForAddress: false }), h.ctx)).createdAt).to.equal('2026-11-30T09:00:00.000Z');
  });

  it('refuses bad fields as Permanent, naming each field and its problem', async () => {
    const h = harness();
    const err = await failure(h.provider.create(spec({ cores: 0, memoryMiB: 1 }), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.match(new RegExp(`^create ${NAME}: cores must be from 1 to \\d+, got 0; memoryMiB must be from 16 to \\d+, got 1$`));
    expect(h.pve.methods()).to.deep.equal([]);
  });

  it('a VM of ours on a node that is not configured is Permanent, saying what to do', async () => {
    const pve = new FakeProxmox({ nodes: [{ name: 'pv1-1' }, { name: 'pv1-9' }] });
    const h = harness({ pve, config: testConfig() });
    addOurVm(h.pve, NAME, UID, { node: 'pv1-9', status: 'running' });
    const err = await failure(h.provider.create(spec(), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.equal(`VM ${VMID} of ${NAME} is on node pv1-9, which is not configured; add it or delete the VM`);
  });

  it('names the task in a failed upload, resize and start', async () => {
    for (const [type, what] of [
      ['imgcopy', `upload of ${NAME}-seed.iso to proxy-seeds`],
      ['resize', `resize of scsi0 of VM ${VMID} to 20G`],
      ['qmstart', `start of VM ${VMID}`],
    ] as const) {
      const h = harness();
      h.pve.setNextTaskOutcome(type, { exitstatus: 'it broke' });
      const err = await failure(h.provider.create(spec({ diskGiB: 20 }), h.ctx));
      expect((err as PermanentError).reason, type).to.equal(`${what} failed on node pv1-1: it broke`);
    }
  });

  it("the job's user-data and network-config reach the seed; without them the seed has the default user-data", async () => {
    const userData = '#cloud-config\nhostname: from-the-job\n';
    const networkConfig = 'version: 2\nethernets: {ens18: {dhcp4: true, dhcp-identifier: from-the-job}}\n';
    const h = harness();
    await h.provider.create(spec({ waitForAddress: false, userData, networkConfig }), h.ctx);
    const seed = h.pve.volumes('pv1-1', 'proxy-seeds')[0]?.bytes.toString('latin1') ?? '';
    expect(seed).to.contain(userData);
    expect(seed).to.contain(networkConfig);
    const plain = harness();
    await plain.provider.create(spec({ waitForAddress: false }), plain.ctx);
    const bare = plain.pve.volumes('pv1-1', 'proxy-seeds')[0]?.bytes.toString('latin1') ?? '';
    expect(bare).to.contain('#cloud-config\n{}\n');
    expect(bare).to.not.contain('from-the-job');
  });

  it("the address comes from the interface with net0's MAC, not the first one the agent lists", async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, {
      status: 'running',
      config: sizedLike(spec()),
      agent: {
        interfaces: [
          { name: 'eth9', 'hardware-address': 'bc:24:11:00:00:01', 'ip-addresses': [{ 'ip-address': '10.99.0.1', 'ip-address-type': 'ipv4' }] },
          { name: 'ens18', 'hardware-address': 'bc:24:11:ee:48:83', 'ip-addresses': [{ 'ip-address': '192.0.2.50', 'ip-address-type': 'ipv4' }] },
        ],
      },
    });
    expect((await h.provider.create(spec(), h.ctx)).address).to.equal('192.0.2.50');
  });

  it('a create that adopts a running VM asks the agent at once, without waiting for a boot', async () => {
    const h = harness();
    addOurVm(h.pve, NAME, UID, { status: 'running', config: sizedLike(spec()) });
    expect((await h.provider.create(spec(), h.ctx)).state).to.equal('Running');
    expect(h.clock.sleeps).to.equal(0);
  });
});
