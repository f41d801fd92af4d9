// SPEC 32 (issue 34) at the HTTP API: GET /v1/vms?cluster= filters (a bad
// value is a 400 naming `cluster`), the views show the cluster and, while
// it is away, the VM Unknown; POST /v1/vms's health gate (SPEC 19) judges
// the create's cluster, the named one or else every one, and names it.
import { expect } from 'chai';
import type { NodeHealth } from '../../src/provider/types.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const CLUSTERS = [
  { name: 'east', url: 'sim' },
  { name: 'west', url: 'sim' },
];

function up(cluster: string, node: string): NodeHealth {
  return { node, cluster, ok: true, reasons: [], freeMemoryMiB: 1000 };
}

function unreachable(cluster: string, node: string): NodeHealth {
  return { node, cluster, ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED 127.0.0.1:8006' }] };
}

const WEST_AWAY = [up('east', 'pve1'), unreachable('west', 'pve1'), unreachable('west', 'pve2')];

describe('several clusters at /v1/vms (SPEC 32)', () => {
  let web: TestWeb;
  afterEach(() => web.close());

  const get = (url: string) => web.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${web.token}` } });
  const create = (payload: Record<string, unknown>) => web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}` }, payload });

  describe('by default (jobs.acceptWhenUnhealthy true)', () => {
    beforeEach(async () => {
      web = await buildTestWeb({}, { clusters: CLUSTERS });
    });

    it('lists one cluster\'s names with ?cluster=, and refuses a cluster not configured or not a name with a 400 naming cluster', async () => {
      expect((await create({ name: 'vm-east', cluster: 'east' })).statusCode).to.equal(202);
      expect((await create({ name: 'vm-west', cluster: 'west' })).statusCode).to.equal(202);
      const west = await get('/v1/vms?cluster=west');
      expect(west.statusCode).to.equal(200);
      expect(west.json<{ vms: { name: string; cluster: string }[] }>().vms.map(({ name, cluster }) => ({ name, cluster }))).to.deep.equal([{ name: 'vm-west', cluster: 'west' }]);
      for (const bad of ['north', 'Not_A_Name']) {
        const res = await get(`/v1/vms?cluster=${bad}`);
        expect(res.statusCode, bad).to.equal(400);
        expect(res.json<{ fields: { field: string }[] }>().fields.map((f) => f.field)).to.deep.equal(['cluster']);
      }
    });

    it('shows a VM of a cluster the last health found away as Unknown, with clusterAway, in its view and the listing', async () => {
      expect((await create({ name: 'vm-west', cluster: 'west' })).statusCode).to.equal(202);
      const seen = { state: 'Running', node: 'pve1', vmid: 100, at: new Date().toISOString() };
      await new DesiredStateRegistry(web.redis, web.prefix, 60).recordLastKnown('vm-west', seen);
      await writeLastHealth(web.redis, web.prefix, WEST_AWAY);
      const res = await get('/v1/vms/vm-west');
      expect(res.json<object>()).to.deep.include({ name: 'vm-west', cluster: 'west', clusterAway: true, lastKnown: { ...seen, state: 'Unknown' } });
      const listed = await get('/v1/vms?cluster=west');
      expect(listed.json<{ vms: object[] }>().vms[0]).to.deep.include({ clusterAway: true, lastKnown: { ...seen, state: 'Unknown' } });
    });

    it('accepts a create naming an away cluster with a warning naming it; one naming none, while another cluster is up, with none', async () => {
      await writeLastHealth(web.redis, web.prefix, WEST_AWAY);
      const named = await create({ name: 'to-west', cluster: 'west' });
      expect(named.statusCode).to.equal(202);
      expect(named.json<{ warning?: string }>().warning).to.match(/^cluster west cannot take a VM: the last health check \(.+\) found cluster west away/);
      expect(named.json<{ warning: string }>().warning).to.contain('cluster west away (pve1: Unreachable').and.to.contain('until a node of cluster west passes');
      const unnamed = await create({ name: 'anywhere' });
      expect(unnamed.statusCode).to.equal(202);
      expect(unnamed.json<object>()).not.to.have.property('warning');
      expect((await get('/v1/vms/anywhere')).json<{ cluster: string }>().cluster, 'placed where it can go').to.equal('east');
    });
  });

  describe('with jobs.acceptWhenUnhealthy false', () => {
    beforeEach(async () => {
      web = await buildTestWeb({}, { clusters: CLUSTERS, env: { JOBS_ACCEPT_WHEN_UNHEALTHY: 'false', HEALTH_EVERY_SECONDS: '45' } });
    });

    it('refuses a create naming an away cluster with a 503 naming it, and one naming none only when every cluster is away', async () => {
      await writeLastHealth(web.redis, web.prefix, WEST_AWAY);
      const named = await create({ name: 'to-west', cluster: 'west' });
      expect(named.statusCode).to.equal(503);
      expect(named.headers['retry-after']).to.equal('45');
      expect(named.json<{ error: string; message: string }>()).to.deep.include({ error: 'NoHealthyNode' });
      expect(named.json<{ message: string }>().message).to.match(/^cluster west cannot take a VM: the last health check \(.+\) found cluster west away \(pve1: Unreachable .*; creates are refused while no node of cluster west passes/);
      expect((await get('/v1/vms/to-west')).statusCode, 'nothing recorded').to.equal(404);
      expect((await create({ name: 'to-east', cluster: 'east' })).statusCode).to.equal(202);
      expect((await create({ name: 'anywhere' })).statusCode).to.equal(202);
      await writeLastHealth(web.redis, web.prefix, [unreachable('east', 'pve1'), unreachable('west', 'pve1')]);
      const none = await create({ name: 'nowhere' });
      expect(none.statusCode).to.equal(503);
      expect(none.json<{ message: string }>().message).to.match(/^no cluster can take a VM: .*found cluster east away \(pve1: Unreachable .*\); cluster west away \(pve1: Unreachable .*no node of any cluster passes/);
    });

    it("judges the cluster a name lives in when the create names none: a create of a name of an away cluster is refused naming it (review of issue 34)", async () => {
      expect((await create({ name: 'vm-west', cluster: 'west' })).statusCode).to.equal(202);
      expect((await create({ name: 'gone-west', cluster: 'west' })).statusCode).to.equal(202);
      expect((await web.app.inject({ method: 'DELETE', url: '/v1/vms/gone-west', headers: { authorization: `Bearer ${web.token}` } })).statusCode).to.equal(202);
      await writeLastHealth(web.redis, web.prefix, WEST_AWAY);
      for (const payload of [{ name: 'vm-west', cores: 4 }, { name: 'gone-west' }]) {
        const res = await create(payload);
        expect(res.statusCode, payload.name).to.equal(503);
        expect(res.json<{ message: string }>().message, payload.name).to.match(/^cluster west cannot take a VM: .*no node of cluster west passes/);
      }
      expect((await get('/v1/vms/vm-west')).json<{ generation: number }>().generation, 'nothing recorded').to.equal(1);
      expect((await create({ name: 'new-name' })).statusCode, 'a new name goes to east').to.equal(202);
    });
  });

  describe('with jobs.acceptWhenUnhealthy false and an image only one cluster serves', () => {
    beforeEach(async () => {
      web = await buildTestWeb({}, {
        clusters: [
          { name: 'east', url: 'sim', images: [{ name: 'debian', templates: { pve1: 9001 } }], defaultImage: 'debian' },
          { name: 'west', url: 'sim', images: [{ name: 'shared', templates: { pve1: 9200 } }], defaultImage: 'shared' },
        ],
        env: { JOBS_ACCEPT_WHEN_UNHEALTHY: 'false' },
      });
    });

    it('refuses a create naming no cluster whose image only an away cluster serves, naming it (review of issue 34)', async () => {
      await writeLastHealth(web.redis, web.prefix, WEST_AWAY);
      const res = await create({ name: 'wants-shared', image: 'shared' });
      expect(res.statusCode).to.equal(503);
      expect(res.json<{ message: string }>().message).to.match(/^cluster west cannot take a VM: .*no node of cluster west passes/);
      expect((await get('/v1/vms/wants-shared')).statusCode, 'nothing recorded').to.equal(404);
      expect((await create({ name: 'wants-debian', image: 'debian' })).statusCode).to.equal(202);
      expect((await create({ name: 'wants-default' })).statusCode, "east's default").to.equal(202);
    });
  });
});
