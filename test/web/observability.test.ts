// SPEC 9, 27 against the running service: `all` in-process on the
// simulator (startAll, real sockets, its own Redis prefix), driven over
// HTTP, its GET /metrics scraped. BullMQ's job totals count what really
// finished; requests are timed by route template, never the raw URL;
// the node health gauge follows the health job; promtool finds nothing
// to say about the scrape; every metric the deploy/ dashboard and alert
// rules query is declared on the scrape.
import { expect } from 'chai';
import type { RunningAll } from '../../src/cli/all.js';
import { createMetrics } from '../../src/metrics.js';
import { deployQueries, metricNamesIn } from '../support/deploy-queries.js';
import { parseSamples, queryableNames, valueOf, type Sample } from '../support/prometheus-scrape.js';
import { promtool } from '../support/promtool.js';
import { eventually } from '../support/redis.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';

const COMPLETED = 3;

describe('metrics of the running service (SPEC 9, 27)', function () {
  this.timeout(120_000);
  let service: ServiceOnSim;
  let running: RunningAll;
  let headers: Record<string, string>;

  const url = (path: string): string => `${running.web.url}${path}`;
  const scrapeText = async (): Promise<string> => {
    const res = await fetch(url('/metrics'), { headers });
    expect(res.status).to.equal(200);
    return res.text();
  };
  const scrape = async (): Promise<Sample[]> => parseSamples(await scrapeText());
  const simFaults = (faults: Record<string, unknown>): Promise<void> => service.simFaults(faults);
  const createAndWait = async (body: Record<string, unknown>): Promise<string> => {
    const created = await fetch(url('/v1/vms'), { method: 'POST', headers, body: JSON.stringify({ waitForAddress: false, ...body }) });
    expect(created.status).to.equal(202);
    const { jobId } = (await created.json()) as { jobId: string };
    const job = (await (await fetch(url(`/v1/jobs/${jobId}?waitSeconds=60`), { headers })).json()) as { state: string };
    return job.state;
  };

  before(async () => {
    // Each scrape reads Redis afresh: these tests follow figures as they change.
    service = await startServiceOnSim('observe', { overrides: { health: { everySeconds: 1 }, http: { metricsCacheSeconds: 0 } }, metrics: createMetrics({ processMetrics: true }) });
    ({ running, headers } = service);
  });

  after(async () => {
    await service?.close();
  });

  it('bullmq_job_completed_total and bullmq_job_failed_total count the jobs that finished', async () => {
    for (let i = 1; i <= COMPLETED; i += 1) expect(await createAndWait({ name: `obs-${i}` })).to.equal('completed');
    // A resize refused for a missing privilege is Permanent: one failed job, on its first attempt.
    await simFaults({ denyAllocateSpace: ['local-lvm'] });
    try {
      expect(await createAndWait({ name: 'obs-denied', node: 'pve1', diskGiB: 20 })).to.equal('failed');
    } finally {
      await simFaults({});
    }
    const samples = await scrape();
    expect(valueOf(samples, 'bullmq_job_completed_total', { queue: 'vm' })).to.equal(COMPLETED);
    expect(valueOf(samples, 'bullmq_job_failed_total', { queue: 'vm' })).to.equal(1);
    // Our own counter agrees with BullMQ's.
    expect(valueOf(samples, 'pvep_jobs_total', { job_name: 'create', outcome: 'completed' })).to.equal(COMPLETED);
    expect(valueOf(samples, 'pvep_jobs_total', { job_name: 'create', outcome: 'failed' })).to.equal(1);
  });

  it('times HTTP requests by route template, method and status, never by the raw URL', async () => {
    expect((await fetch(url('/v1/vms/obs-timed-name'), { headers })).status).to.equal(404);
    expect((await fetch(url('/v1/vms'), { headers })).status).to.equal(200);
    expect((await fetch(url('/v1/no-such-route'), { headers })).status).to.equal(404);
    expect((await fetch(url('/v1/vms'))).status).to.equal(401);
    const samples = (await scrape()).filter((s) => s.name.startsWith('pvep_http_request_duration_seconds'));
    const count = (labels: Record<string, string>): number | undefined => valueOf(samples, 'pvep_http_request_duration_seconds_count', labels);
    expect(count({ route: '/v1/vms/:name', method: 'GET', status: '404' })).to.equal(1);
    expect(count({ route: '/v1/vms', method: 'GET', status: '200' })).to.equal(1);
    expect(count({ route: '/v1/vms', method: 'GET', status: '401' })).to.equal(1);
    expect(count({ route: 'unmatched', method: 'GET', status: '404' })).to.equal(1);
    expect(count({ route: '/v1/jobs/:id', method: 'GET', status: '200' })).to.be.at.least(COMPLETED);
    const routes = new Set(samples.map((s) => s.labels.route));
    expect([...routes].filter((route) => route?.includes('obs-') || route?.includes('no-such'))).to.deep.equal([]);
    expect(valueOf(samples, 'pvep_http_request_duration_seconds_bucket', { route: '/v1/vms', method: 'GET', status: '200', le: '+Inf' })).to.equal(1);
  });

  it('pvep_node_healthy follows the last health job: 1 for a fit node, 0 with its reason for one that went offline', async () => {
    const healthy = await eventually(async () => {
      const samples = await scrape();
      return valueOf(samples, 'pvep_node_healthy', { node: 'pve2' }) === 1 ? samples : undefined;
    }, 20_000, 250);
    expect(valueOf(healthy, 'pvep_node_healthy', { node: 'pve1' })).to.equal(1);
    await simFaults({ offlineNodes: ['pve2'] });
    try {
      // A health run already under way when the fault came may see pve2 unreachable; the next one sees it offline.
      const after = await eventually(async () => {
        const samples = await scrape();
        return valueOf(samples, 'pvep_node_health_reasons', { node: 'pve2', reason: 'NodeOffline' }) === 1 ? samples : undefined;
      }, 20_000, 250);
      expect(valueOf(after, 'pvep_node_healthy', { node: 'pve2' })).to.equal(0);
      expect(valueOf(after, 'pvep_node_healthy', { node: 'pve1' })).to.equal(1);
      expect(valueOf(after, 'pvep_node_health_reasons', { node: 'pve1' })).to.equal(undefined);
      const checkedAt = valueOf(after, 'pvep_node_health_checked_timestamp_seconds') ?? 0;
      expect(Date.now() / 1000 - checkedAt).to.be.within(0, 30);
    } finally {
      await simFaults({});
    }
  });

  it('promtool check metrics accepts the whole scrape, the libraries\' names included: exit 0, nothing said', async () => {
    const run = await promtool(['check', 'metrics'], await scrapeText());
    const said = `${run.stdout}${run.stderr}`;
    // 3 would be "parsed, with lint problems", 1 a scrape it cannot parse.
    expect({ code: run.code, said }).to.deep.equal({ code: 0, said: '' });
  });

  it('declares every metric the deploy/ dashboard and alert rules query', async () => {
    const declared = queryableNames(await scrapeText());
    const queries = deployQueries();
    expect(queries.length).to.be.greaterThan(10);
    const missing = [...new Set(queries.flatMap(metricNamesIn))].filter((name) => !declared.has(name));
    expect(missing).to.deep.equal([]);
  });
});
