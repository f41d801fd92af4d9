// SPEC 27 on the fake seam: a create's image picks the template per node,
// placement goes only to nodes that serve the image, a cross-node image
// clones with target, and the template check reads the image's template.
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import type { ImageConfig, NodeConfig } from '../../src/config/types.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import type { CreateSpec } from '../../src/provider/types.js';
import { FakeProxmox, type FakeStorageInit } from '../fakes/fake-proxmox.js';
import { harness, RANGE, testConfig } from './harness.js';
import { rejection } from '../support/rejection.js';

const UID = 'feed0000-0000-4000-8000-000000000027';
const VMID = vmidForUid(UID, RANGE);
const SHARED: FakeStorageInit = { storage: 'vm-shared', content: 'images', type: 'rbd', shared: true };
const LOCAL: FakeStorageInit[] = [
  { storage: 'local-lvm', content: 'rootdir,images', type: 'lvmthin' },
  { storage: 'proxy-seeds', content: 'iso', type: 'dir' },
];
const GIB = 2 ** 30;

/** a, b, c with no template of their own: the images say what each serves. */
const NODES: NodeConfig[] = ['a', 'b', 'c'].map((name) => ({ name, isoStorage: 'proxy-seeds' }));
const IMAGES: ImageConfig[] = [
  // The default: each node's own debian template.
  { name: 'debian', templates: { a: 9001, b: 9002, c: 9003 } },
  // Only a and b, each with its own template.
  { name: 'ubuntu', templates: { a: 9501, b: 9502 } },
  // One template on a, on shared storage, cloned to c with target.
  { name: 'shared', templates: { a: 9300, c: { vmid: 9300, node: 'a' } } },
];

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: 'img-vm', uid: UID, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, ...over };
}

/** c has the most free memory, then b, then a. */
function world(): ReturnType<typeof harness> {
  const pve = new FakeProxmox({
    nodes: [
      { name: 'a', maxmem: 64 * GIB, mem: 50 * GIB, storages: [...LOCAL, SHARED] },
      { name: 'b', maxmem: 64 * GIB, mem: 30 * GIB, storages: [...LOCAL, SHARED] },
      { name: 'c', maxmem: 64 * GIB, mem: 0, storages: [...LOCAL, SHARED] },
    ],
  });
  pve.addTemplate('a', 9501, { name: 'ubuntu-a' });
  pve.addTemplate('b', 9502, { name: 'ubuntu-b' });
  pve.addTemplate('a', 9300, { name: 'shared', scsi0: 'vm-shared:base-9300-disk-1,size=3G', efidisk0: 'vm-shared:base-9300-disk-0,size=4M' });
  return harness({ pve, config: testConfig(NODES, IMAGES, 'debian') });
}

function cloneCall(h: ReturnType<typeof harness>): unknown[] {
  const calls = h.pve.callsTo('clone');
  expect(calls, 'one clone').to.have.length(1);
  return calls[0]?.args ?? [];
}

describe('images (SPEC 27) on the fake seam', () => {
  it('a create without image clones the default image, on the node with most free memory', async () => {
    const h = world();
    const result = await h.provider.create(spec(), h.ctx);
    expect(result.node).to.equal('c');
    expect(cloneCall(h).slice(0, 2)).to.deep.equal(['c', 9003]);
    // The result names the image it resolved and the template it cloned.
    expect(result).to.deep.include({ image: 'debian', source: { vmid: 9003, node: 'c' } });
  });

  it('places an image only on a node that serves it: ubuntu skips c, which has more free memory', async () => {
    const h = world();
    const result = await h.provider.create(spec({ image: 'ubuntu' }), h.ctx);
    expect(result).to.deep.include({ node: 'b', vmid: VMID, state: 'Running' });
    expect(cloneCall(h).slice(0, 2)).to.deep.equal(['b', 9502]);
    expect(h.pve.vm(VMID)).to.include({ node: 'b' });
  });

  it('clones the image\'s template for the named node', async () => {
    const h = world();
    await h.provider.create(spec({ image: 'ubuntu', node: 'a' }), h.ctx);
    expect(cloneCall(h).slice(0, 2)).to.deep.equal(['a', 9501]);
  });

  it('an image on another node clones there with target, and the VM runs on its node', async () => {
    const h = world();
    const result = await h.provider.create(spec({ image: 'shared' }), h.ctx);
    expect(result.node).to.equal('c');
    const args = cloneCall(h);
    expect(args.slice(0, 2)).to.deep.equal(['a', 9300]);
    expect(args[2]).to.deep.include({ newid: VMID, target: 'c', full: true });
    expect(h.pve.vm(VMID)).to.include({ node: 'c', status: 'running' });
    expect(result).to.deep.include({ image: 'shared', source: { vmid: 9300, node: 'a', target: 'c' } });
  });

  it('a create that finds its VM made before still names its image and template in the result', async () => {
    const h = world();
    await h.provider.create(spec({ image: 'ubuntu' }), h.ctx);
    const again = await h.provider.create(spec({ image: 'ubuntu' }), h.ctx);
    expect(h.pve.callsTo('clone'), 'no second clone').to.have.length(1);
    expect(again).to.deep.include({ image: 'ubuntu', node: 'b', source: { vmid: 9502, node: 'b' } });
  });

  it('a named node that does not serve the image is Permanent, before any Proxmox call', async () => {
    const h = world();
    const err = await rejection(h.provider.create(spec({ image: 'ubuntu', node: 'c' }), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.include('image ubuntu is not served by node c (served by: a, b)');
    expect(h.pve.methods()).to.deep.equal([]);
  });

  it('an unknown image is Permanent naming image, before any Proxmox call', async () => {
    const h = world();
    const err = await rejection(h.provider.create(spec({ image: 'windows' }), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.match(/image must be one of the configured values: debian, ubuntu, shared/);
    expect(h.pve.methods()).to.deep.equal([]);
  });

  it('the disk-size check reads the image\'s template: a 20 GiB boot disk refuses diskGiB 10 only for that image', async () => {
    const h = world();
    h.pve.vm(9502)!.config.scsi0 = 'local-lvm:base-9502-disk-0,size=20G';
    const err = await rejection(h.provider.create(spec({ image: 'ubuntu', node: 'b' }), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.include('image ubuntu').and.include('template 9502').and.include('20.0 GiB');
    expect(h.pve.count('clone')).to.equal(0);
    const h2 = world();
    h2.pve.vm(9502)!.config.scsi0 = 'local-lvm:base-9502-disk-0,size=20G';
    expect((await h2.provider.create(spec({ node: 'b' }), h2.ctx)).node, 'the default image on b is fine').to.equal('b');
  });

  it('a missing template of an image names its key in proxmox.images', async () => {
    const h = world();
    const cfg = testConfig(NODES, [...IMAGES, { name: 'gone', templates: { a: 9999 } }], 'debian');
    const h2 = harness({ pve: h.pve, config: cfg });
    const err = await rejection(h2.provider.create(spec({ image: 'gone' }), h2.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect(err.message).to.include('does not exist').and.include('proxmox.images[3].templates.a');
  });
});
