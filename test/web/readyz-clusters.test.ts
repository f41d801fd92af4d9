// SPEC 32 (issue 34): "health and /readyz say which cluster is away". With
// several clusters /readyz stays ready while another cluster takes VMs and
// warns, naming the cluster away to a request with a token and only
// counting them to one without; it is not ready when every cluster is
// away, and says so. The one-cluster form's answer has no cluster part.
import { expect } from 'chai';
import { hostname } from 'node:os';
import type { NodeHealth } from '../../src/provider/types.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { startHeartbeat, type Heartbeat } from '../../src/queue/heartbeat.js';
import { checkReadiness, type ReadinessSources } from '../../src/web/readiness.js';
import { BOTH_AWAY, EAST_UP_WEST_AWAY, TWO_CLUSTERS_ENV } from '../support/two-clusters.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const CLUSTERS = [{ name: 'east' }, { name: 'west' }];

function sources(nodes: NodeHealth[]): ReadinessSources {
  return {
    pingRedis: () => Promise.resolve(),
    liveWorkers: () => Promise.resolve([{ id: 'w1', host: 'h1' }]),
    lastHealth: () => Promise.resolve({ at: '2030-01-02T03:04:05.000Z', nodes }),
  };
}

describe('readiness with several clusters (SPEC 32)', () => {
  it('is ready while one cluster is away and another takes VMs, with a warning naming the one away and each cluster\'s state', async () => {
    const report = await checkReadiness(sources(EAST_UP_WEST_AWAY), CLUSTERS);
    expect(report.ready).to.equal(true);
    expect(report.warning).to.equal('Proxmox cluster west is away: none of its nodes answered the last health check; its VMs are Unknown, and creates that name no cluster go to the others');
    expect(report.warningSummary).to.equal('1 of 2 Proxmox clusters is away: none of its nodes answered the last health check; its VMs are Unknown, and creates that name no cluster go to the others');
    expect(report.checks.clusters).to.deep.equal([
      { name: 'east', state: 'up' },
      { name: 'west', state: 'away' },
    ]);
  });

  it('is not ready when every cluster is away, and names them with each node\'s reason', async () => {
    const report = await checkReadiness(sources(BOTH_AWAY), CLUSTERS);
    expect(report.ready).to.equal(false);
    expect(report.reason).to.match(/^every Proxmox cluster is away \(east, west\): none of their nodes answered the last health check \(2030-01-02T03:04:05\.000Z\): pve1: Unreachable \(connect ECONNREFUSED 10\.1\.0\.1:8006\); /);
    expect(report.summary).to.equal('the workers cannot provision: no Proxmox cluster answered the last health check (Unreachable)');
    expect(report).to.not.have.property('warning');
    expect(report.checks.clusters?.map((c) => c.state)).to.deep.equal(['away', 'away']);
  });

  it('gives no cluster part without clusters (the one-cluster form): the report is as before', async () => {
    const report = await checkReadiness(sources([{ node: 'pve1', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED' }] }]));
    expect(report.ready).to.equal(false);
    expect(report.reason).to.match(/^the workers cannot provision: the last health check found no node fit/);
    expect(report).to.not.have.any.keys('warning', 'warningSummary');
    expect(report.checks).to.not.have.property('clusters');
  });

  it('says nothing of clusters while all are up', async () => {
    const report = await checkReadiness(sources(EAST_UP_WEST_AWAY.filter((node) => node.cluster === 'east')), CLUSTERS);
    expect(report.ready).to.equal(true);
    expect(report).to.not.have.property('warning');
    // west: no result names it yet.
    expect(report.checks.clusters).to.deep.equal([
      { name: 'east', state: 'up' },
      { name: 'west', state: 'unknown' },
    ]);
  });
});

describe('/readyz with several clusters (SPEC 32)', () => {
  let web: TestWeb;
  let beat: Heartbeat;
  beforeEach(async () => {
    web = await buildTestWeb({}, { env: TWO_CLUSTERS_ENV });
    beat = startHeartbeat(web.redis, web.prefix, 'worker-1', 2);
    await beat.first;
  });
  afterEach(async () => {
    await beat.stop();
    await web.close();
  });

  const get = (token?: string) => web.app.inject({ method: 'GET', url: '/readyz', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  it('answers 200 with one cluster away: the warning names it with a token, and only counts without one', async () => {
    await writeLastHealth(web.redis, web.prefix, EAST_UP_WEST_AWAY);
    const withToken = await get(web.token);
    expect(withToken.statusCode).to.equal(200);
    expect(withToken.json<{ warning?: string; checks?: { clusters?: unknown } }>()).to.deep.include({ warning: 'Proxmox cluster west is away: none of its nodes answered the last health check; its VMs are Unknown, and creates that name no cluster go to the others' });
    expect(withToken.json<{ checks: { clusters: unknown } }>().checks.clusters).to.deep.equal([
      { name: 'east', state: 'up' },
      { name: 'west', state: 'away' },
    ]);
    const open = await get();
    expect(open.statusCode).to.equal(200);
    const body = open.json<{ ready: boolean; warning?: string }>();
    expect(body.ready).to.equal(true);
    expect(body.warning).to.match(/^1 of 2 Proxmox clusters is away/);
    for (const secret of ['west', 'east', 'pve3', '10.2.0', hostname()]) expect(open.body, secret).to.not.contain(secret);
  });

  it('answers 503 when every cluster is away, saying so', async () => {
    await writeLastHealth(web.redis, web.prefix, BOTH_AWAY);
    const res = await get(web.token);
    expect(res.statusCode).to.equal(503);
    expect(res.json<{ reason: string }>().reason).to.match(/^every Proxmox cluster is away \(east, west\)/);
    const open = await get();
    expect(open.statusCode).to.equal(503);
    expect(open.json<{ reason: string }>().reason).to.equal('the workers cannot provision: no Proxmox cluster answered the last health check (Unreachable)');
  });
});
