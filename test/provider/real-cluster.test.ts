// SPEC 23: the provider on a cluster as Proxmox builds it, against the
// fake: a VMID unique across nodes, a clone that collides inside its task,
// a template on another node cloned with `target`, failures that name what
// to fix instead of being retried.
import { expect } from 'chai';
import { PermanentError, TransientError } from '../../src/errors.js';
import { kindOf } from '../../src/proxmox/classify.js';
import { vmidForUid } from '../../src/provider/vmid.js';
import type { CreateSpec } from '../../src/provider/types.js';
import type { NodeConfig } from '../../src/config/types.js';
import { FakeProxmox, type FakeStorageInit } from '../fakes/fake-proxmox.js';
import { harness, RANGE, testConfig } from './harness.js';
import { rejection } from '../support/rejection.js';

const NAME = 'runner-a';
const UID = 'c0ffee00-0000-4000-8000-000000000023';
const VMID = vmidForUid(UID, RANGE);
const NEXT = VMID === RANGE.max ? RANGE.min : VMID + 1;
const SHARED: FakeStorageInit = { storage: 'vm-shared', content: 'images', type: 'rbd', shared: true };
const LOCAL: FakeStorageInit[] = [
  { storage: 'local-lvm', content: 'rootdir,images', type: 'lvmthin' },
  { storage: 'proxy-seeds', content: 'iso', type: 'dir' },
];

function spec(over: Partial<CreateSpec> = {}): CreateSpec {
  return { name: NAME, uid: UID, cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, ...over };
}

/** Two nodes, each with its own template (9001 on pv1-1, 9002 on pv1-2), and vm-shared on both. */
function twoNodes(): FakeProxmox {
  return new FakeProxmox({ nodes: [{ name: 'pv1-1', storages: [...LOCAL, SHARED] }, { name: 'pv1-2', storages: [...LOCAL, SHARED] }] });
}

const nodes = (second: Partial<NodeConfig> = {}): NodeConfig[] => [
  { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' },
  { name: 'pv1-2', template: 9002, isoStorage: 'proxy-seeds', ...second },
];

describe('a real cluster (SPEC 23)', () => {
  it('a create whose VMID a VM on another node holds ends Running on the next free VMID; the foreign VM is untouched', async () => {
    const pve = twoNodes();
    const foreign = pve.addVm({ vmid: VMID, node: 'pv1-2', config: { name: 'someone-else', description: 'not ours' }, status: 'running' });
    const before = structuredClone(foreign.config);
    const h = harness({ pve, config: testConfig(nodes()) });
    const result = await h.provider.create(spec({ node: 'pv1-1' }), h.ctx);
    expect(result).to.deep.include({ vmid: NEXT, node: 'pv1-1', state: 'Running' });
    expect(h.pve.callsTo('clone').map((c) => (c.args[2] as { newid: number }).newid)).to.deep.equal([VMID, NEXT]);
    // The first clone was accepted and failed inside its task, as pmxcfs refuses the config there.
    const clones = [...pve.tasks.values()].filter((t) => t.type === 'qmclone').map((t) => t.done?.exitstatus);
    expect(clones).to.have.length(2);
    expect(clones[0]).to.match(/^close \(rename\) atomic file '[^']+\/qemu-server\/\d+\.conf' failed: File exists$/);
    expect(clones[1]).to.equal('OK');
    expect(pve.vm(VMID)).to.include({ node: 'pv1-2', status: 'running' });
    expect(pve.vm(VMID)?.config).to.deep.equal(before);
    expect(h.pve.methods().filter((m) => ['putConfig', 'resize', 'start', 'stop', 'destroy'].includes(m)).length).to.be.greaterThan(0);
    for (const write of ['putConfig', 'resize', 'start', 'stop', 'destroy'] as const) {
      expect(h.pve.callsTo(write).every((c) => c.args[1] !== VMID), `${write} never touches the foreign VM`).to.equal(true);
    }
  });

  it('a clone task that fails for another reason is Transient and probes no further VMID', async () => {
    const h = harness({ pve: twoNodes(), config: testConfig(nodes()) });
    h.pve.setNextTaskOutcome('qmclone', { exitstatus: 'clone failed: lvcreate: got lock timeout - aborting command' });
    const err = await rejection(h.provider.create(spec({ node: 'pv1-1' }), h.ctx));
    expect(err).to.be.instanceOf(TransientError);
    expect(h.pve.callsTo('clone').map((c) => (c.args[2] as { newid: number }).newid)).to.deep.equal([VMID]);
  });

  it('a create whose VMID is held on another node by a VM of ours (an earlier attempt) adopts it', async () => {
    const pve = twoNodes();
    const h = harness({ pve, config: testConfig(nodes()) });
    const first = await h.provider.create(spec({ node: 'pv1-2' }), h.ctx);
    expect(first).to.deep.include({ vmid: VMID, node: 'pv1-2' });
    pve.vm(VMID)!.config.name = NAME;
    const again = await h.provider.create(spec({ node: 'pv1-1' }), h.ctx);
    expect(again).to.deep.include({ vmid: VMID, node: 'pv1-2', state: 'Running' });
    expect(pve.vmsNamed(NAME)).to.have.length(1);
  });

  it('a resize refused inside its task for a missing privilege fails at once, Permanent, naming the privilege', async () => {
    const h = harness();
    h.pve.setNextTaskOutcome('resize', { exitstatus: '403 Permission check failed (/storage/local-lvm, Datastore.AllocateSpace)' });
    const err = await rejection(h.provider.create(spec(), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect((err as PermanentError).reason).to.contain('the API token lacks Datastore.AllocateSpace on /storage/local-lvm');
    expect(kindOf(err)).to.equal('PermissionDenied');
    expect(h.pve.count('start')).to.equal(0);
  });

  it('a storage that does not exist fails the create at once, Permanent, naming the config key that holds it', async () => {
    const pve = twoNodes();
    const h = harness({ pve, config: testConfig(nodes({ storage: 'local-lvn' })) });
    const err = await rejection(h.provider.create(spec({ node: 'pv1-2' }), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect((err as PermanentError).reason).to.equal("storage 'local-lvn' does not exist in the Proxmox cluster: fix proxmox.nodes[1].storage");
    expect(h.pve.count('clone')).to.equal(1);
  });

  it('a node whose template lives on another node clones it there with target, and the VM runs on this node', async () => {
    const pve = twoNodes();
    pve.addTemplate('pv1-1', 9300, { scsi0: 'vm-shared:base-9300-disk-1,size=3G', efidisk0: 'vm-shared:base-9300-disk-0,size=4M' });
    const h = harness({ pve, config: testConfig(nodes({ template: { vmid: 9300, node: 'pv1-1' } })) });
    const result = await h.provider.create(spec({ node: 'pv1-2' }), h.ctx);
    expect(result).to.deep.include({ vmid: VMID, node: 'pv1-2', state: 'Running' });
    const [clone] = h.pve.callsTo('clone');
    expect(clone?.args.slice(0, 2)).to.deep.equal(['pv1-1', 9300]);
    expect(clone?.args[2]).to.deep.include({ newid: VMID, target: 'pv1-2', full: true });
    expect(pve.vm(VMID)).to.include({ node: 'pv1-2', status: 'running' });
  });

  it('a template on another node with local disks is refused at once, Permanent, naming the key to fix', async () => {
    const pve = twoNodes();
    const h = harness({ pve, config: testConfig(nodes({ template: { vmid: 9001, node: 'pv1-1' } })) });
    const err = await rejection(h.provider.create(spec({ node: 'pv1-2' }), h.ctx));
    expect(err).to.be.instanceOf(PermanentError);
    expect((err as PermanentError).reason).to.match(/template 9001 on node pv1-1 \(cloned to pv1-2\) has disks on local storage.*proxmox\.nodes\[1\]\.template/);
    expect(pve.vm(VMID)).to.equal(undefined);
  });

  describe('health of a template on another node (SPEC 19, SPEC 23)', () => {
    it('is ok when every disk of the template is on shared storage', async () => {
      const pve = twoNodes();
      pve.addTemplate('pv1-1', 9300, { scsi0: 'vm-shared:base-9300-disk-1,size=3G', efidisk0: 'vm-shared:base-9300-disk-0,size=4M' });
      const h = harness({ pve, config: testConfig(nodes({ template: { vmid: 9300, node: 'pv1-1' } })) });
      const report = await h.provider.health(h.ctx);
      expect(report.map((n) => [n.node, n.ok])).to.deep.equal([['pv1-1', true], ['pv1-2', true]]);
    });

    it('says the template cannot serve the node, with the local storage and the key, when a disk is local', async () => {
      const pve = twoNodes();
      pve.addTemplate('pv1-1', 9300, { scsi0: 'vm-shared:base-9300-disk-1,size=3G', efidisk0: 'local-lvm:base-9300-disk-0,size=4M' });
      const h = harness({ pve, config: testConfig(nodes({ template: { vmid: 9300, node: 'pv1-1' } })) });
      const [, second] = await h.provider.health(h.ctx);
      expect(second?.ok).to.equal(false);
      expect(second?.reasons).to.have.length(1);
      expect(second?.reasons[0]?.reason).to.equal('TemplateNotFound');
      expect(second?.reasons[0]?.detail).to.match(/template 9300 on node pv1-1 \(cloned to pv1-2\) cannot serve pv1-2: .*not shared \(local-lvm\).*fix proxmox\.nodes\[1\]\.template/);
    });

    it('names the key when the template on another node is missing', async () => {
      const pve = twoNodes();
      const h = harness({ pve, config: testConfig(nodes({ template: { vmid: 9399, node: 'pv1-1' } })) });
      const [, second] = await h.provider.health(h.ctx);
      expect(second?.reasons[0]).to.deep.equal({ reason: 'TemplateNotFound', detail: 'template 9399 does not exist on pv1-1; fix proxmox.nodes[1].template (image default)' });
    });
  });

  describe('the pvestatd lag: a clone that just ended is nameless, status unknown, in /cluster/resources (SPEC 23)', () => {
    /** A fake whose resources never refresh until the test runs a cycle, and a create killed right after its clone. */
    async function killedAfterClone(): Promise<ReturnType<typeof harness>> {
      const pve = twoNodes();
      pve.statdEvery = 40;
      const h = harness({ pve, config: testConfig(nodes()) });
      const ctx = { ...h.ctx, progress: (step: string) => { if (step === 'cloned') throw new Error('killed after cloned'); } };
      await rejection(h.provider.create(spec({ node: 'pv1-1' }), ctx));
      const entry = (await pve.clusterResources('vm')).find((r) => r.vmid === VMID);
      expect(entry).to.deep.include({ status: 'unknown' });
      expect(entry?.name).to.equal(undefined);
      return h;
    }

    it('a create run again in the window adopts the clone: one VM, one clone', async () => {
      const h = await killedAfterClone();
      const result = await h.provider.create(spec({ node: 'pv1-1' }), h.ctx);
      expect(result).to.deep.include({ vmid: VMID, node: 'pv1-1', state: 'Running' });
      expect(h.pve.vmsNamed(NAME)).to.have.length(1);
      expect(h.pve.count('clone')).to.be.at.most(2);
      expect([...h.pve.tasks.values()].filter((t) => t.type === 'qmclone' && t.done?.exitstatus === 'OK')).to.have.length(1);
    });

    it('a delete by name in the window finds the clone and destroys it, instead of reporting nothing there', async () => {
      const h = await killedAfterClone();
      const result = await h.provider.delete({ name: NAME }, h.ctx);
      expect(result).to.deep.include({ deleted: true, vmid: VMID });
      expect(h.pve.vm(VMID)).to.equal(undefined);
    });

    it('a Get in the window is Transient, never NotFound', async () => {
      const h = await killedAfterClone();
      const err = await rejection(h.provider.get({ name: NAME, uid: UID }, h.ctx));
      expect(err).to.be.instanceOf(TransientError);
    });
  });
});
