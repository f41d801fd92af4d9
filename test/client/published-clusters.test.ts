// SPEC 32 (issue 34), SPEC 6: a producer places and checks a create as
// the service does. limitsFromConfig gives each cluster's limits and, at
// the top, every cluster's nodes and images together (one cluster's view:
// its own); the published config carries the clusters under a version an
// older client refuses; a client given no config reads it and places,
// names, repeats and refuses as the service's own door; producerConfig
// refuses a bad cluster naming the key.
import { expect } from 'chai';
import { ProducerConfigError, SpecConflictError, ValidationError, createUncheckedProvisionerClient } from '../../src/client.js';
import type { ConfigMismatch, UncheckedProvisionerClient } from '../../src/client.js';
import { clustersOf, configForCluster } from '../../src/config/clusters.js';
import { producerConfig } from '../../src/config/producer.js';
import { PUBLISHED_CLUSTERS_VERSION, parsePublished, publishedProducerConfig } from '../../src/config/producer-published.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { producerConfigPublisher } from '../../src/queue/producer-config-store.js';
import { createHarness, type Harness } from '../support/harness.js';
import { REDIS_CLUSTER_NODES, REDIS_URL } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

const DEBIAN = { name: 'debian', templates: { pve1: 9001, pve2: 9002 } };
const ALPINE = { name: 'alpine', templates: { 'edge-b': 9102 } };
const EDGE_NODES = [
  { name: 'edge-a', isoStorage: 'seeds', bridge: 'vmbr0' },
  { name: 'edge-b', isoStorage: 'seeds', bridge: 'vmbr0' },
];
/** east: the single keys' nodes (pve1, pve2) serving debian; edge: nodes of its own, serving debian on edge-a and alpine on edge-b. */
const CLUSTERS = [
  { name: 'east', url: 'sim', images: [DEBIAN] },
  { name: 'edge', url: 'sim', nodes: EDGE_NODES, images: [{ name: 'debian', templates: { 'edge-a': 9001 } }, ALPINE] },
];

describe('several clusters in the producer config (SPEC 32, 6)', () => {
  let h: Harness | undefined;
  const clients: UncheckedProvisionerClient[] = [];
  const client = (options: Partial<Parameters<typeof createUncheckedProvisionerClient>[0]> = {}): UncheckedProvisionerClient => {
    const made = createUncheckedProvisionerClient({ redisUrl: REDIS_URL, redis: { url: REDIS_URL, clusterNodes: REDIS_CLUSTER_NODES }, prefix: h?.config.redis.prefix ?? 'unused', ...options });
    clients.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await h?.close();
    h = undefined;
  });

  it("gives each cluster's limits, every cluster's nodes and images together at the top, and one cluster's own on its view", () => {
    h = createHarness('limits-clusters', { config: { proxmox: { clusters: CLUSTERS } } });
    const limits = limitsFromConfig(h.config);
    expect(limits.clusters?.map(({ name, nodes, images, defaultImage }) => ({ name, nodes, images, defaultImage }))).to.deep.equal([
      { name: 'east', nodes: ['pve1', 'pve2'], images: { debian: ['pve1', 'pve2'] }, defaultImage: 'debian' },
      { name: 'edge', nodes: ['edge-a', 'edge-b'], images: { debian: ['edge-a'], alpine: ['edge-b'] }, defaultImage: 'debian' },
    ]);
    expect(limits.clusters?.[1]?.networks?.nodes).to.deep.equal({ 'edge-a': { bridge: 'vmbr0' }, 'edge-b': { bridge: 'vmbr0' } });
    expect(limits.nodes).to.deep.equal(['pve1', 'pve2', 'edge-a', 'edge-b']);
    expect(limits.images).to.deep.equal({ debian: ['pve1', 'pve2', 'edge-a'], alpine: ['edge-b'] });
    expect(limits.defaultImage).to.equal('debian');
    const [, edge] = clustersOf(h.config);
    const view = limitsFromConfig(configForCluster(h.config, edge ?? clustersOf(h.config)[0]!));
    expect(view.nodes, "a cluster's view: its own").to.deep.equal(['edge-a', 'edge-b']);
    expect(view.clusters?.map((c) => c.name)).to.deep.equal(['east', 'edge']);
    expect(limitsFromConfig(producerConfig()), 'the one-cluster form: no clusters').not.to.have.property('clusters');
  });

  it('publishes the clusters under a version of their own, without what a producer has no use for', () => {
    h = createHarness('publish-clusters', { config: { proxmox: { clusters: CLUSTERS } } });
    const published = publishedProducerConfig(h.config);
    expect(published.version).to.equal(PUBLISHED_CLUSTERS_VERSION);
    expect(published.config.proxmox.clusters).to.deep.equal([
      { name: 'east', nodes: [{ name: 'pve1' }, { name: 'pve2' }], images: [DEBIAN], defaultImage: '', networks: [] },
      { name: 'edge', nodes: [{ name: 'edge-a', bridge: 'vmbr0' }, { name: 'edge-b', bridge: 'vmbr0' }], images: CLUSTERS[1]?.images, defaultImage: '', networks: [] },
    ]);
    const read = parsePublished(JSON.stringify(published), 'k');
    expect(read.kind === 'found' && read.config.proxmox.clusters?.map((c) => c.name)).to.deep.equal(['east', 'edge']);
    expect(publishedProducerConfig(producerConfig()).config.proxmox, 'the one-cluster form publishes none').not.to.have.property('clusters');
  });

  it('a producer given no config places, names, repeats and refuses as the service does, from the published clusters', async () => {
    h = createHarness('external-clusters', { config: { proxmox: { clusters: CLUSTERS } } });
    await producerConfigPublisher(h.redis, h.prefix, h.config).write();
    const producer = client();
    await producer.createVm({ name: 'ext-1', image: 'alpine' });
    expect((await producer.getVm('ext-1'))?.cluster).to.equal('edge');
    await writeLastHealth(h.redis, h.prefix, [
      { node: 'pve1', cluster: 'east', ok: true, reasons: [], freeMemoryMiB: 10 },
      { node: 'edge-a', cluster: 'edge', ok: true, reasons: [], freeMemoryMiB: 5000 },
    ]);
    const placed = await producer.createVm({ name: 'ext-2', uid: 'u-2' });
    expect((await producer.getVm('ext-2'))?.cluster).to.equal('edge');
    expect(await h.client.createVm({ name: 'ext-2', uid: 'u-2' }), "the service's own door: the same job").to.deep.equal({ ...placed, existing: true });
    const conflict = await rejection(producer.createVm({ name: 'ext-2', uid: 'u-2', cluster: 'east' }));
    expect((conflict as SpecConflictError).fields).to.deep.equal(['cluster']);
    const offCluster = await rejection(producer.createVm({ name: 'ext-3', cluster: 'east', node: 'edge-a', image: 'debian' }));
    expect((offCluster as ValidationError).fields).to.deep.equal([{ field: 'node', message: 'edge-a is not a node of cluster east (its nodes: pve1, pve2)' }]);
    expect((await producer.listVms({ cluster: 'edge' })).vms.map((vm) => vm.name)).to.deep.equal(['ext-1', 'ext-2']);
  });

  it('tells a producer given a config of other clusters that it differs, naming proxmox.clusters', async () => {
    h = createHarness('mismatch-clusters', { config: { proxmox: { clusters: CLUSTERS } } });
    await producerConfigPublisher(h.redis, h.prefix, h.config).write();
    const heard: ConfigMismatch[] = [];
    await client({ config: { ...h.config, proxmox: { ...h.config.proxmox, clusters: [...(h.config.proxmox.clusters ?? [])].reverse() } }, onConfigMismatch: (m) => heard.push(m) }).getVm('none');
    expect(heard.map((m) => m.differences.map((d) => d.key))).to.deep.equal([['proxmox.clusters']]);
  });

  it('refuses a bad cluster in a given config, naming the key', () => {
    const refused = (settings: Parameters<typeof producerConfig>[0]): string => {
      try {
        producerConfig(settings);
      } catch (err) {
        expect(err).to.be.instanceOf(ProducerConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ proxmox: { clusters: [{ name: 'East' }] } })).to.equal('config.proxmox.clusters[0].name must be 1 to 20 of a-z, 0-9, "-", starting with a letter');
    expect(refused({ proxmox: { clusters: [{ name: 'a' }, { name: 'a' }] } })).to.contain('names cluster "a" twice');
    expect(refused({ proxmox: { clusters: [{ name: 'a', images: [{ name: 'x', templates: { nowhere: 1 } }] }] } })).to.match(/^config\.proxmox\.clusters\[0\] \(a\): config\.proxmox\.images\[0\] \(x\) names node "nowhere"/);
    expect(refused({ proxmox: { clusters: [{ name: 'a' }] }, pools: [{ name: 'p', minIdle: 1, cluster: 'b' }] })).to.contain('cluster "b" is not in config.proxmox.clusters (a)');
    expect(refused({ pools: [{ name: 'p', minIdle: 1, cluster: 'b' }] })).to.contain('is not "default", and config.proxmox.clusters is empty');
    expect(producerConfig({ pools: [{ name: 'p', minIdle: 1, cluster: 'default' }] }).pools[0]?.cluster, "the one-cluster form's cluster, as the loader takes it").to.equal('default');
  });
});
