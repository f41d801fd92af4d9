// SPEC 19: health, one entry per configured node, checked concurrently.
import { expect } from 'chai';
import { readToken } from '../../src/proxmox/token.js';
import type { ImageConfig, NodeConfig } from '../../src/config/types.js';
import { fakeErrors } from '../fakes/fake-errors.js';
import { FakeProxmox } from '../fakes/fake-proxmox.js';
import { apiErrorFromFixture } from '../support/fixtures.js';
import { harness, testConfig } from './harness.js';

const NODES: NodeConfig[] = ['a', 'b', 'c'].map((name, i) => ({ name, template: 9001 + i, isoStorage: 'proxy-seeds' }));

function threeNodes(nodes: NodeConfig[] = NODES): ReturnType<typeof harness> {
  return harness({ pve: new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }), config: testConfig(nodes) });
}

async function reasonsOf(h: ReturnType<typeof harness>): Promise<Record<string, string[]>> {
  const result = await h.provider.health(h.ctx);
  return Object.fromEntries(result.map((n) => [n.node, n.reasons.map((r) => r.reason)]));
}

describe('health (SPEC 19)', () => {
  it('answers ok for every healthy node', async () => {
    const h = threeNodes();
    const result = await h.provider.health(h.ctx);
    expect(result).to.deep.equal(NODES.map((n) => ({ node: n.name, ok: true, reasons: [], images: [{ image: 'default', ok: true, reasons: [] }] })));
  });

  it('checks the nodes concurrently: each waits until every node has been asked', async () => {
    const h = threeNodes();
    h.pve.on('version', async () => {
      const started = Date.now();
      while (h.pve.count('version') < NODES.length) {
        if (Date.now() - started > 2000) throw new Error('the other nodes were never asked');
        await new Promise((r) => setTimeout(r, 1));
      }
    });
    expect((await h.provider.health(h.ctx)).every((n) => n.ok)).to.equal(true);
  });

  it('Unreachable, CertificateInvalid, CredentialsUnavailable, CredentialsRejected from /version', async () => {
    const tls = Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' });
    const cases: [() => Promise<void>, string][] = [
      [() => Promise.reject(fakeErrors.noRouteToHost()), 'Unreachable'],
      [() => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:8006'), { code: 'ECONNREFUSED' })), 'Unreachable'],
      [() => Promise.reject(tls), 'CertificateInvalid'],
      [async () => void (await readToken('/nonexistent/pve-token')), 'CredentialsUnavailable'],
      [() => Promise.reject(apiErrorFromFixture('err_auth_failed')), 'CredentialsRejected'],
    ];
    for (const [fail, reason] of cases) {
      const h = harness();
      h.pve.on('version', fail);
      const [node] = await h.provider.health(h.ctx);
      expect(node, reason).to.deep.include({ node: 'pv1-1', ok: false });
      expect(node!.reasons.map((r) => r.reason), reason).to.deep.equal([reason]);
      expect(node!.reasons[0]!.detail).to.be.a('string').and.not.equal('');
    }
  });

  it('PermissionDenied names the privilege', async () => {
    const h = harness();
    h.pve.failNext('storages', apiErrorFromFixture('err_forbidden_volume_delete'));
    const [node] = await h.provider.health(h.ctx);
    expect(node!.reasons.map((r) => r.reason)).to.deep.equal(['PermissionDenied']);
    expect(node!.reasons[0]!.detail).to.contain('Datastore.Allocate');
  });

  it('NodeOffline for a node the cluster lists as offline', async () => {
    const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b', status: 'offline' }] });
    const h = harness({ pve, config: testConfig(NODES.slice(0, 2)) });
    expect(await reasonsOf(h)).to.deep.equal({ a: [], b: ['NodeOffline'] });
  });

  it('StorageNotFound when the seed storage is missing or holds no ISO content', async () => {
    const h = threeNodes([{ ...NODES[0]!, isoStorage: 'nowhere' }, { ...NODES[1]!, isoStorage: 'local-lvm' }, NODES[2]!]);
    expect(await reasonsOf(h)).to.deep.equal({ a: ['StorageNotFound'], b: ['StorageNotFound'], c: [] });
  });

  it('checks each image a node serves, on its own: a broken template marks that image on that node, and the node (SPEC 27)', async () => {
    const images: ImageConfig[] = [
      { name: 'debian', templates: { a: 9001, b: 9002, c: 9003 } },
      { name: 'other', templates: { a: 9101, b: 9102 } },
    ];
    const nodes = NODES.map(({ template: _t, ...node }) => node);
    const h = harness({ pve: new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }), config: testConfig(nodes, images) });
    h.pve.addVm({ vmid: 9101, node: 'a', config: { ...h.pve.vm(9001)!.config, name: 'other-a' } });
    h.pve.addVm({ vmid: 9102, node: 'b', config: { ...h.pve.vm(9002)!.config, name: 'other-b', template: 0 } });
    const result = await h.provider.health(h.ctx);
    const byNode = Object.fromEntries(result.map((n) => [n.node, n.images?.map((i) => [i.image, i.ok, i.reasons.map((r) => r.reason)])]));
    expect(byNode).to.deep.equal({
      a: [['debian', true, []], ['other', true, []]],
      b: [['debian', true, []], ['other', false, ['TemplateNotFound']]],
      c: [['debian', true, []]],
    });
    expect(result.map((n) => n.ok)).to.deep.equal([true, false, true]);
    expect(result[1]?.reasons[0]?.detail).to.include('9102').and.include('proxmox.images[1].templates.b').and.include('image other');
  });

  it('a node that fails its own checks is fit for none of its images, for the same reason (SPEC 27)', async () => {
    const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b', status: 'offline' }] });
    const h = harness({ pve, config: testConfig(NODES.slice(0, 2)) });
    const result = await h.provider.health(h.ctx);
    expect(result[1]?.images).to.deep.equal([{ image: 'default', ok: false, reasons: result[1]?.reasons }]);
    expect(result[1]?.reasons.map((r) => r.reason)).to.deep.equal(['NodeOffline']);
  });

  it('TemplateNotFound when the template is missing or not a template', async () => {
    const h = threeNodes([{ ...NODES[0]!, template: 4242 }, NODES[1]!, NODES[2]!]);
    h.pve.vm(9002)!.config.template = 0;
    expect(await reasonsOf(h)).to.deep.equal({ a: ['TemplateNotFound'], b: ['TemplateNotFound'], c: [] });
  });
  it('names a protected template in a note, on the image and the node, and the node stays ok (SPEC 28)', async () => {
    const h = threeNodes();
    h.pve.vm(9002)!.config.protection = 1;
    const result = await h.provider.health(h.ctx);
    const b = result.find((n) => n.node === 'b')!;
    expect(b).to.include({ ok: true });
    expect(b.reasons).to.deep.equal([]);
    expect(b.notes).to.have.length(1);
    expect(b.notes?.[0]).to.contain('template 9002 on node b').and.contain('is protected').and.contain('the create deletes it');
    expect(b.images).to.deep.equal([{ image: 'default', ok: true, reasons: [], notes: b.notes }]);
    expect(result.filter((n) => n.notes !== undefined).map((n) => n.node)).to.deep.equal(['b']);
  });
});

describe('health checks every storage the config names, on every node (SPEC 28)', () => {
  const STORAGES = [
    { storage: 'local-lvm', content: 'rootdir,images', type: 'lvmthin' },
    { storage: 'fast', content: 'images', type: 'lvmthin' },
    { storage: 'proxy-seeds', content: 'iso', type: 'dir' },
  ];
  const withStorage: NodeConfig[] = NODES.map((n) => ({ ...n, storage: 'fast' }));
  const fake = () => new FakeProxmox({ nodes: ['a', 'b', 'c'].map((name) => ({ name, storages: STORAGES })) });

  async function detailsOf(pve: FakeProxmox, nodes: NodeConfig[] = withStorage): Promise<Record<string, string[]>> {
    const h = harness({ pve, config: testConfig(nodes) });
    const result = await h.provider.health(h.ctx);
    for (const n of result) for (const r of n.reasons) expect(r.reason).to.equal('StorageNotFound');
    return Object.fromEntries(result.map((n) => [n.node, n.reasons.map((r) => r.detail)]));
  }

  it('a disabled storage, or one whose nodes leave a node out, is named with its key and the node', async () => {
    const pve = fake();
    pve.disabledStorages.add('fast');
    pve.storageNodes.set('proxy-seeds', ['a', 'b']);
    expect(await detailsOf(pve)).to.deep.equal({
      a: ["storage fast (proxmox.nodes[0].storage) is disabled, or not available on node a (storage.cfg's disable or nodes): enable it for a, or fix proxmox.nodes[0].storage"],
      b: ["storage fast (proxmox.nodes[1].storage) is disabled, or not available on node b (storage.cfg's disable or nodes): enable it for b, or fix proxmox.nodes[1].storage"],
      c: [
        "storage proxy-seeds (proxmox.nodes[2].isoStorage) is disabled, or not available on node c (storage.cfg's disable or nodes): enable it for c, or fix proxmox.nodes[2].isoStorage",
        "storage fast (proxmox.nodes[2].storage) is disabled, or not available on node c (storage.cfg's disable or nodes): enable it for c, or fix proxmox.nodes[2].storage",
      ],
    });
  });

  it('the clone storage must hold images and the seed storage ISOs; an inactive storage is named too', async () => {
    const pve = fake();
    const nodes: NodeConfig[] = [{ ...NODES[0]!, storage: 'proxy-seeds' }, { ...NODES[1]!, storage: 'nowhere' }, { ...NODES[2]!, storage: 'fast' }];
    pve.inactiveStorages.add('fast');
    const details = await detailsOf(pve, nodes);
    expect(details.a).to.deep.equal(['storage proxy-seeds (proxmox.nodes[0].storage) on node a does not hold VM disk images (content: iso); add images to its content, or fix proxmox.nodes[0].storage']);
    expect(details.b).to.deep.equal(['storage nowhere (proxmox.nodes[1].storage) is not listed on node b: it does not exist in the Proxmox cluster; fix proxmox.nodes[1].storage']);
    expect(details.c).to.deep.equal(['storage fast (proxmox.nodes[2].storage) is not active on node c: Proxmox cannot reach it']);
  });

  it('lists each node once per check, even when templates on it are cloned to other nodes', async () => {
    const pve = new FakeProxmox({ nodes: ['a', 'b', 'c'].map((name) => ({ name })), sharedTemplate: true });
    const nodes: NodeConfig[] = NODES.map((n) => ({ ...n, template: { vmid: 9200, node: 'a' }, storage: 'vm-shared' }));
    const h = harness({ pve, config: testConfig(nodes) });
    expect((await h.provider.health(h.ctx)).every((n) => n.ok)).to.equal(true);
    expect(pve.callsTo('storages').map((c) => c.args[0]).sort()).to.deep.equal(['a', 'b', 'c']);
    pve.storageNodes.set('vm-shared', ['b', 'c']);
    const again = await h.provider.health(h.ctx);
    expect(again.find((n) => n.node === 'b')?.reasons.map((r) => r.detail)).to.deep.equal([
      'storage vm-shared (proxmox.nodes[1].storage) is disabled or not available on node a, where the template is cloned from: enable it for a, or fix proxmox.nodes[1].storage',
    ]);
  });
});

describe("health checks each node's own apiUrl (SPEC 28)", () => {
  const one: NodeConfig[] = [{ name: 'a', template: 9001, isoStorage: 'proxy-seeds', apiUrl: 'https://user:pw@pve-a.example:8006' }];

  it('asks /nodes through the apiUrl and is fine when it names the same cluster', async () => {
    const h = harness({ pve: new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }] }), config: testConfig(one) });
    expect((await h.provider.health(h.ctx))[0]?.ok).to.equal(true);
    expect(h.pve.callsTo('nodes').map((c) => c.via)).to.deep.equal([undefined, 'a']);
  });

  it('Unreachable naming the key when the apiUrl does not answer, and nothing more is asked of that node', async () => {
    const h = harness({ pve: new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }] }), config: testConfig(one) });
    h.pve.on('nodes', (_args, call) => {
      if (call.via === 'a') throw fakeErrors.noRouteToHost();
    });
    const [node] = await h.provider.health(h.ctx);
    expect(node?.reasons).to.have.length(1);
    expect(node?.reasons[0]?.reason).to.equal('Unreachable');
    expect(node?.reasons[0]?.detail).to.match(/^proxmox\.nodes\[0\]\.apiUrl \(https:\/\/pve-a\.example:8006\) does not answer: /);
    expect(node?.reasons[0]?.detail).not.to.contain('pw');
    expect(h.pve.count('storages')).to.equal(0);
  });

  it('names the apiUrl that serves another cluster, with both node lists', async () => {
    const pve = new FakeProxmox({ nodes: [{ name: 'a' }, { name: 'b' }] });
    const h = harness({ pve, config: testConfig(one) });
    pve.on('nodes', (_args, call) => {
      if (call.via !== 'a') return;
      // Another cluster that also has a node named a.
      const other = pve.nodeList.splice(1, 1, { name: 'z', status: 'online', storages: [] });
      setImmediate(() => pve.nodeList.splice(1, 1, ...other));
    });
    const [node] = await h.provider.health(h.ctx);
    expect(node?.reasons).to.deep.equal([
      {
        reason: 'Unreachable',
        detail: "proxmox.nodes[0].apiUrl (https://pve-a.example:8006) serves another cluster: its nodes are a, z, proxmox.url's are a, b; fix proxmox.nodes[0].apiUrl",
      },
    ]);
  });
});
