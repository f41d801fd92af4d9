// SPEC 32 (issue 34): "the CLI and the client follow". The producer
// library's listClusters answers what GET /v1/clusters does: each cluster
// of the limits it checks creates against (their `clusters` with several,
// else the one cluster `default`), with its state, nodes' health and free
// memory from the last health result in Redis.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { createProvisionerClient, type ProvisionerClient } from '../../src/client.js';
import type { JobLimits } from '../../src/job-table/fields.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { producerConfig } from '../../src/config/producer.js';
import { clusterShapesOfLimits, clusterViews } from '../../src/queue/cluster-views.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { REDIS_URL, deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';
import { EAST_UP_WEST_AWAY } from '../support/two-clusters.js';

describe('the producer library lists the clusters (SPEC 32)', () => {
  let redis: Redis;
  let prefix: string;
  let client: ProvisionerClient;
  beforeEach(() => {
    redis = newRedis();
    prefix = uniquePrefix('client-clusters');
    client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config: { proxmox: { nodes: [{ name: 'pve1' }, { name: 'pve2' }] } } });
  });
  afterEach(async () => {
    await client.close();
    await deletePrefix(redis, keyPrefix(prefix));
    redis.disconnect();
  });

  it('answers the one-cluster form as the cluster `default`, unknown before a health result and up after', async () => {
    expect(await client.listClusters()).to.deep.equal({ clusters: [{ name: 'default', health: 'unknown', nodes: [{ name: 'pve1' }, { name: 'pve2' }], images: ['default'], freeMemoryMiB: 0 }] });
    await writeLastHealth(redis, keyPrefix(prefix), [
      { node: 'pve1', ok: true, reasons: [], freeMemoryMiB: 1024 },
      { node: 'pve2', ok: false, reasons: [{ reason: 'NodeOffline', detail: 'status offline' }] },
    ], new Date('2030-01-02T03:04:05Z'));
    const [cluster] = (await client.listClusters()).clusters;
    expect(cluster).to.deep.equal({
      name: 'default',
      health: 'up',
      nodes: [
        { name: 'pve1', ok: true, reasons: [] },
        { name: 'pve2', ok: false, reasons: [{ reason: 'NodeOffline', detail: 'status offline' }] },
      ],
      images: ['default'],
      freeMemoryMiB: 1024,
      checkedAt: '2030-01-02T03:04:05.000Z',
    });
  });

  it('is the same for a tenant (any tenant may read it)', async () => {
    const acme = client.asTenant({ name: 'acme', scope: 'read', quotas: {} });
    expect((await acme.listClusters()).clusters.map((c) => c.name)).to.deep.equal(['default']);
  });
});

describe('each cluster of the limits a producer checks against (SPEC 32)', () => {
  it('takes the limits\' clusters in their order with several, each with its own nodes, images and health', () => {
    const base = limitsFromConfig(producerConfig());
    const limits: JobLimits = {
      ...base,
      clusters: [
        { name: 'east', nodes: ['pve1', 'pve2'], images: { default: ['pve1', 'pve2'] }, defaultImage: 'default' },
        { name: 'west', nodes: ['pve1', 'pve3'], images: { ubuntu: ['pve1', 'pve3'] }, defaultImage: 'ubuntu' },
      ],
    };
    const shapes = clusterShapesOfLimits(limits);
    expect(shapes).to.deep.equal([
      { name: 'east', nodes: ['pve1', 'pve2'], images: ['default'] },
      { name: 'west', nodes: ['pve1', 'pve3'], images: ['ubuntu'] },
    ]);
    const views = clusterViews(shapes, { at: '2030-01-02T03:04:05Z', nodes: EAST_UP_WEST_AWAY });
    expect(views.map((v) => [v.name, v.health, v.freeMemoryMiB, v.nodes.map((n) => n.ok)])).to.deep.equal([
      ['east', 'up', 3000, [true, false]],
      ['west', 'away', 0, [false, false]],
    ]);
  });

  it('is the one cluster `default` of the top-level nodes and images without clusters', () => {
    const limits = limitsFromConfig(producerConfig({ proxmox: { images: [{ name: 'debian', templates: { pve1: 9001 } }] } }));
    expect(clusterShapesOfLimits(limits)).to.deep.equal([{ name: 'default', nodes: ['pve1', 'pve2'], images: ['debian'] }]);
  });
});
