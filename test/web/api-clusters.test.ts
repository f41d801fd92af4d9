// SPEC 32 (issue 34): "GET /v1/clusters (name, nodes, health, images)".
// Each configured cluster in the configured order, its nodes and images
// from config, its state, its nodes' health and free memory from the last
// health result in the real Redis; any token may read it (a tenant's read
// token too); the one-cluster form is one cluster, `default`; the OpenAPI
// document has the route and its schema.
import { expect } from 'chai';
import { writeLastHealth } from '../../src/queue/health-store.js';
import type { ClusterView } from '../../src/queue/cluster-views.js';
import { EAST_UP_WEST_AWAY, TWO_CLUSTERS_ENV } from '../support/two-clusters.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const READ_TOKEN = 'acme-read-token-0123456789abcdef';

describe('GET /v1/clusters (SPEC 32)', () => {
  let web: TestWeb | undefined;
  afterEach(async () => {
    await web?.close();
    web = undefined;
  });

  const get = async (token: string): Promise<{ status: number; clusters: ClusterView[] }> => {
    const res = await web!.app.inject({ method: 'GET', url: '/v1/clusters', headers: { authorization: `Bearer ${token}` } });
    return { status: res.statusCode, clusters: res.json<{ clusters: ClusterView[] }>().clusters };
  };

  it('answers every configured cluster in order with its nodes, images, state and free memory, to a tenant\'s read token too', async () => {
    web = await buildTestWeb({}, { env: TWO_CLUSTERS_ENV, tokenLines: [`${READ_TOKEN} tenant=acme scope=read`] });
    await writeLastHealth(web.redis, web.prefix, EAST_UP_WEST_AWAY, new Date('2030-01-02T03:04:05Z'));
    const answer = await get(READ_TOKEN);
    expect(answer.status).to.equal(200);
    expect(answer.clusters).to.deep.equal([
      {
        name: 'east',
        health: 'up',
        nodes: [
          { name: 'pve1', ok: true, reasons: [] },
          { name: 'pve2', ok: false, reasons: [{ reason: 'NodeOffline', detail: 'status offline' }] },
        ],
        images: ['default'],
        // Only the nodes that take VMs count: pve2's 500 MiB do not.
        freeMemoryMiB: 3000,
        checkedAt: '2030-01-02T03:04:05.000Z',
      },
      {
        name: 'west',
        health: 'away',
        // west's pve1 is its own, not east's pve1.
        nodes: [
          { name: 'pve1', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 10.2.0.1:8006' }] },
          { name: 'pve3', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 10.2.0.3:8006' }] },
        ],
        images: ['ubuntu'],
        freeMemoryMiB: 0,
        checkedAt: '2030-01-02T03:04:05.000Z',
      },
    ]);
  });

  it('answers the clusters as unknown, their nodes without health, before any health result', async () => {
    web = await buildTestWeb({}, { env: TWO_CLUSTERS_ENV });
    const answer = await get(web.token);
    expect(answer.status).to.equal(200);
    expect(answer.clusters.map((c) => [c.name, c.health, c.freeMemoryMiB, 'checkedAt' in c])).to.deep.equal([
      ['east', 'unknown', 0, false],
      ['west', 'unknown', 0, false],
    ]);
    expect(answer.clusters[1]?.nodes).to.deep.equal([{ name: 'pve1' }, { name: 'pve3' }]);
  });

  it('answers the one-cluster form as one cluster `default` of the single-cluster keys, its health from entries that name no cluster', async () => {
    web = await buildTestWeb();
    await writeLastHealth(web.redis, web.prefix, [
      { node: 'pve1', ok: true, reasons: [] },
      { node: 'pve2', ok: true, reasons: [] },
    ]);
    const answer = await get(web.token);
    expect(answer.clusters).to.have.length(1);
    expect(answer.clusters[0]).to.deep.include({ name: 'default', health: 'up', images: ['default'], freeMemoryMiB: 0 });
    expect(answer.clusters[0]?.nodes).to.deep.equal([
      { name: 'pve1', ok: true, reasons: [] },
      { name: 'pve2', ok: true, reasons: [] },
    ]);
  });

  it('needs a token like every /v1 route', async () => {
    web = await buildTestWeb();
    const res = await web.app.inject({ method: 'GET', url: '/v1/clusters' });
    expect(res.statusCode).to.equal(401);
  });

  it('is in the OpenAPI document: listClusters answering a ClusterList of Cluster', async () => {
    web = await buildTestWeb();
    type Doc = { paths: Record<string, { get?: { operationId?: string; responses: Record<string, unknown> } }>; components: { schemas: Record<string, { required?: string[]; properties?: Record<string, { enum?: string[] }> }> } };
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<Doc>();
    expect(doc.paths['/clusters']?.get?.operationId).to.equal('listClusters');
    expect(doc.paths['/clusters']?.get?.responses).to.include.keys('200', '401');
    const cluster = doc.components.schemas.Cluster;
    expect(cluster?.required).to.deep.equal(['name', 'health', 'nodes', 'images', 'freeMemoryMiB']);
    expect(cluster?.properties?.health?.enum).to.deep.equal(['up', 'degraded', 'away', 'unknown']);
    expect(doc.components.schemas.ClusterList?.required).to.deep.equal(['clusters']);
    // A VM's view documents its cluster and whether that cluster is away.
    expect(doc.components.schemas.Vm?.properties).to.include.keys('cluster', 'clusterAway');
    // An image's node names its cluster (GET /v1/images with several clusters).
    const imageNodes = (doc.components.schemas.Image?.properties as Record<string, { items?: { properties?: object } }> | undefined)?.nodes?.items?.properties;
    expect(imageNodes).to.include.keys('cluster');
  });
});
