// SPEC 9: a worker running alone exposes its own counters (jobs, Proxmox
// calls, lock waits) on a bare /metrics endpoint, the job's name in a
// label Prometheus keeps as it is (`job` is its own scrape-job label).
import { expect } from 'chai';
import { createMetrics } from '../../src/metrics.js';
import { parseSamples } from '../support/prometheus-scrape.js';
import { serveMetrics, type MetricsServer } from '../../src/web/metrics-server.js';

describe('serveMetrics (SPEC 9)', () => {
  let server: MetricsServer;
  const metrics = createMetrics();
  before(async () => {
    server = await serveMetrics(metrics.registry, '127.0.0.1', 0);
  });
  after(() => server.close());

  it('serves the counters the worker increments', async () => {
    metrics.jobFinished('delete', 'superseded', 0.01);
    metrics.proxmoxCall('clone', '200', 0.02);
    metrics.lockWaited('create');
    metrics.reconcilerFindings('orphan', 2);
    const res = await fetch(server.url);
    expect(res.status).to.equal(200);
    const text = await res.text();
    expect(text).to.contain('pvep_jobs_total{job_name="delete",outcome="superseded"} 1');
    expect(text).to.contain('pvep_proxmox_calls_total{method="clone",status="200"} 1');
    expect(text).to.contain('pvep_proxmox_call_duration_seconds_count{method="clone"} 1');
    expect(text).to.contain('pvep_lock_waits_total{job_name="create"} 1');
    expect(text).to.contain('pvep_reconciler_findings_total{kind="orphan"} 2');
  });

  it('names the job in job_name, and no series has a job label for Prometheus to rename to exported_job', async () => {
    metrics.jobFinished('create', 'completed', 1);
    metrics.lockWaited('delete');
    const samples = parseSamples(await (await fetch(server.url)).text());
    const ofJobs = samples.filter((s) => ['pvep_jobs_total', 'pvep_job_duration_seconds_count', 'pvep_lock_waits_total'].includes(s.name));
    expect(ofJobs.map((s) => s.labels.job_name)).to.include.members(['create', 'delete']);
    expect(samples.filter((s) => 'job' in s.labels).map((s) => s.name)).to.deep.equal([]);
  });

  it('answers 404 for anything else', async () => {
    expect((await fetch(server.url.replace('/metrics', '/other'))).status).to.equal(404);
  });
});
