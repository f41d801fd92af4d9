// A storage Proxmox refuses on a node (SPEC 28): storage.cfg disables it,
// or its `nodes` leave the node out. The create fails at once, Permanent,
// naming the config key that chose the storage and the node.
import { expect } from 'chai';
import { PermanentError } from '../../src/errors.js';
import { classifyError, classifyTaskExit } from '../../src/proxmox/classify.js';
import { ProxmoxApiError } from '../../src/proxmox/api-error.js';
import type { CreateSpec } from '../../src/provider/types.js';
import type { NodeConfig } from '../../src/config/types.js';
import { FakeProxmox, type FakeStorageInit } from '../fakes/fake-proxmox.js';
import { harness, testConfig } from './harness.js';
import { rejection } from '../support/rejection.js';

const STORAGES: FakeStorageInit[] = [
  { storage: 'local-lvm', content: 'rootdir,images', type: 'lvmthin' },
  { storage: 'fast', content: 'images', type: 'lvmthin' },
  { storage: 'proxy-seeds', content: 'iso', type: 'dir' },
];

const spec = (over: Partial<CreateSpec> = {}): CreateSpec => ({
  name: 'runner-a',
  uid: 'c0ffee00-0000-4000-8000-000000000028',
  cores: 2,
  memoryMiB: 2048,
  diskGiB: 10,
  waitForAddress: true,
  node: 'pv1-2',
  ...over,
});

function twoNodes(): FakeProxmox {
  return new FakeProxmox({ nodes: [{ name: 'pv1-1', storages: STORAGES }, { name: 'pv1-2', storages: STORAGES }] });
}

const nodes = (second: Partial<NodeConfig> = {}): NodeConfig[] => [
  { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' },
  { name: 'pv1-2', template: 9002, isoStorage: 'proxy-seeds', ...second },
];

async function refusedCreate(pve: FakeProxmox, second: Partial<NodeConfig> = {}): Promise<string> {
  const h = harness({ pve, config: testConfig(nodes(second)) });
  const err = await rejection(h.provider.create(spec(), h.ctx));
  expect(err).to.be.instanceOf(PermanentError);
  return (err as PermanentError).reason;
}

describe('a storage disabled or not available on the node is Permanent and names the config key (SPEC 28)', () => {
  it("a clone onto proxmox.nodes[i].storage when storage.cfg disables it: refused before the task, no VM, no upload", async () => {
    const pve = twoNodes();
    pve.disabledStorages.add('fast');
    expect(await refusedCreate(pve, { storage: 'fast' })).to.equal(
      "storage 'fast' is disabled in Proxmox (storage.cfg), so node pv1-2 cannot use it: enable it, or fix proxmox.nodes[1].storage",
    );
    expect(pve.count('clone')).to.equal(1);
    expect(pve.count('upload')).to.equal(0);
    expect([...pve.vms.keys()].filter((vmid) => vmid < 9000)).to.deep.equal([]);
  });

  it("a clone onto proxmox.nodes[i].storage whose nodes leave the node out names the node", async () => {
    const pve = twoNodes();
    pve.storageNodes.set('fast', ['pv1-1']);
    expect(await refusedCreate(pve, { storage: 'fast' })).to.equal(
      "storage 'fast' is not available on node pv1-2 (its nodes in storage.cfg leave pv1-2 out): add pv1-2 to the storage's nodes, or fix proxmox.nodes[1].storage",
    );
  });

  it("the template's own disk storage refused inside the clone's task names the template key and nodes[i].storage", async () => {
    const pve = twoNodes();
    pve.storageNodes.set('local-lvm', ['pv1-1']);
    const reason = await refusedCreate(pve);
    expect(reason).to.match(/^storage 'local-lvm' is not available on node pv1-2 .*: add pv1-2 to the storage's nodes, or fix proxmox\.nodes\[1\]\.template \(.*9002.*has its disks there; or set proxmox\.nodes\[1\]\.storage\)$/);
  });

  it("the template's own disk storage refused with nodes[i].storage set elsewhere names the template key only: the source's disks are read where they are", async () => {
    const pve = twoNodes();
    pve.disabledStorages.add('local-lvm');
    const reason = await refusedCreate(pve, { storage: 'fast' });
    expect(reason).to.match(/^storage 'local-lvm' is disabled in Proxmox \(storage\.cfg\), so node pv1-2 cannot use it: enable it, or fix proxmox\.nodes\[1\]\.template \([^;]*9002[^;]*has its disks there\)$/);
    expect(pve.count('upload')).to.equal(0);
  });

  it('an upload to proxmox.nodes[i].isoStorage that storage.cfg disables fails at once naming isoStorage', async () => {
    const pve = twoNodes();
    pve.disabledStorages.add('proxy-seeds');
    expect(await refusedCreate(pve)).to.equal(
      "storage 'proxy-seeds' is disabled in Proxmox (storage.cfg), so node pv1-2 cannot use it: enable it, or fix proxmox.nodes[1].isoStorage",
    );
    expect(pve.count('upload')).to.equal(1);
    expect(pve.count('start')).to.equal(0);
  });

  it('a seed storage disabled between the upload and the config write fails the write at once naming isoStorage', async () => {
    const pve = twoNodes();
    pve.on('putConfig', () => {
      pve.disabledStorages.add('proxy-seeds');
    });
    expect(await refusedCreate(pve)).to.equal(
      "storage 'proxy-seeds' is disabled in Proxmox (storage.cfg), so node pv1-2 cannot use it: enable it, or fix proxmox.nodes[1].isoStorage",
    );
    expect(pve.count('upload')).to.equal(1);
    expect(pve.count('start')).to.equal(0);
  });

  it('the client classes both texts Permanent wherever they come from, in an answer or a clone task', () => {
    const answer = (message: string) => new ProxmoxApiError({ status: 500, reason: message, message, method: 'GET', path: '/nodes/pv1-1/storage/x/content' });
    expect(classifyError(answer("storage 'x' is disabled")).errorClass).to.equal('Permanent');
    expect(classifyError(answer("storage 'x' is not available on node 'pv1-1'")).errorClass).to.equal('Permanent');
    expect(classifyError(answer("storage 'x' is disabled now")).errorClass).to.equal('Transient');
    const task = classifyTaskExit("clone failed: storage 'x' is disabled", 'clone of 9001 failed on node pv1-1', undefined);
    expect(task.errorClass).to.equal('Permanent');
    expect(task.reason).to.contain("storage 'x' is disabled (storage.cfg)");
  });
});
