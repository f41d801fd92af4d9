// SPEC 30: a pool member's create (CreateSpec `poolMember`) tags the VM as
// a pool VM beside ours, and its seed's vendor-data makes the image user's
// ~/.ssh, where a claim's agent/file-write puts the claimer's keys. An
// image with no user cannot make members: Permanent, before any write.
import { expect } from 'chai';
import type { ImageConfig } from '../../src/config/types.js';
import { readIso } from '../../src/sim/iso-reader/index.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import type { CreateSpec } from '../../src/provider/types.js';
import { rejection } from '../support/rejection.js';
import { harness, RANGE, TAG, testConfig, type Harness } from './harness.js';

const NAME = 'pvep-pool-small-1';
const UID = 'e0000000-0000-4000-8000-00000000000e';
const VMID = vmidForUid(UID, RANGE);

// `user` is proxmox.images[].user (SPEC 30), which ImageConfig gains with config `pools`.
const IMAGES = [
  { name: 'debian', templates: { 'pv1-1': 9001 }, user: 'debian' },
  { name: 'nouser', templates: { 'pv1-1': 9001 } },
] as ImageConfig[];

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: NAME, uid: UID, image: 'debian', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, poolMember: 'small', ...over };
}

function vendorData(h: Harness, name = NAME): string | undefined {
  const volume = h.pve.volumes('pv1-1', 'proxy-seeds').find((v) => v.volid === `proxy-seeds:iso/${name}-seed.iso`);
  return volume === undefined ? undefined : readIso(volume.bytes).files.get('vendor-data')?.toString('utf8');
}

describe('a pool member\'s create (SPEC 30)', () => {
  it('carries our tag and the pool tag, and its vendor-data makes the user\'s ~/.ssh before the agent starts', async () => {
    const h = harness({ config: testConfig(undefined, IMAGES, 'debian') });
    await h.provider.create(spec(), h.ctx);
    expect(h.pve.vm(VMID)?.config.tags).to.equal(`debian;${TAG};${TAG}-pool`);
    const vendor = vendorData(h) ?? '';
    const mkdir = vendor.indexOf('mkdir -p /home/debian/.ssh && chown debian: /home/debian/.ssh && chmod 700 /home/debian/.ssh');
    expect(mkdir).to.be.above(0);
    expect(mkdir).to.be.below(vendor.indexOf('qemu-guest-agent'));
  });

  it('an ordinary create gets neither the pool tag nor the ~/.ssh', async () => {
    const h = harness({ config: testConfig(undefined, IMAGES, 'debian') });
    await h.provider.create(spec({ name: 'plain', poolMember: undefined }), h.ctx);
    expect(h.pve.vmsNamed('plain')[0]?.config.tags).to.equal(`debian;${TAG}`);
    expect(vendorData(h, 'plain')).to.not.include('.ssh');
  });

  it('a member of an image with no user is Permanent, naming proxmox.images[].user, and nothing is written', async () => {
    const h = harness({ config: testConfig(undefined, IMAGES, 'debian') });
    const err = await rejection(h.provider.create(spec({ image: 'nouser' }), h.ctx));
    expect(err).to.include({ errorClass: 'Permanent' });
    expect(err.message).to.include('image nouser names no user (proxmox.images[].user)');
    expect(h.pve.methods().filter((m) => ['clone', 'upload', 'putConfig', 'start'].includes(m))).to.deep.equal([]);
  });
});
