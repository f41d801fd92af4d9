// SPEC 27: deploy/grafana/pve-provisioner.json is a dashboard Grafana
// imports into any Prometheus data source (a ${datasource} variable that
// every panel and query uses), with a panel for each thing the issue
// lists, and PromQL that Prometheus parses (checked by promtool, each
// query as a recording rule). That each metric exists on a running
// service is test/web/observability.test.ts.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DASHBOARD_FILE, dashboardQueries } from '../support/deploy-queries.js';
import { promtool } from '../support/promtool.js';

interface Target {
  expr: string;
  datasource?: { uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  repeat?: string;
  gridPos: { y: number };
  datasource?: { uid?: string };
  targets?: Target[];
}
interface Dashboard {
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string | { query: string }; multi?: boolean; includeAll?: boolean; datasource?: { uid?: string } }[] };
}

const dashboard = (): Dashboard => JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
const graphs = (): Panel[] => dashboard().panels.filter((p) => p.type !== 'row');

/** What the issue asks a panel for, and a metric that shows it. */
const WANTED: [string, RegExp][] = [
  ['jobs by outcome', /sum by \(outcome\) \(rate\(pvep_jobs_total/],
  ['job durations', /pvep_job_duration_seconds_bucket/],
  ['Proxmox calls', /pvep_proxmox_calls_total/],
  ['Proxmox latency', /pvep_proxmox_call_duration_seconds_bucket/],
  ['request budget (limiter) waits', /pvep_proxmox_budget_wait_seconds_bucket/],
  ['lock waits', /pvep_lock_waits_total/],
  ['sweep findings', /pvep_reconciler_findings_total/],
  ['queue depth', /bullmq_jobs/],
  ['node health', /pvep_node_healthy/],
  ['HTTP request duration', /pvep_http_request_duration_seconds_bucket/],
  ['webhook deliveries by outcome', /sum by \(event, outcome\) \(rate\(pvep_webhook_deliveries_total/],
  ['webhook delivery duration', /pvep_webhook_delivery_duration_seconds_bucket/],
  ['each Proxmox cluster up or away (SPEC 32)', /pvep_cluster_up\{cluster=~"\$cluster"\}/],
  ["each Proxmox cluster's nodes fit (SPEC 32)", /pvep_cluster_nodes_healthy\{cluster=~"\$cluster"\}/],
];

describe('the Grafana dashboard in deploy/ (SPEC 27)', () => {
  it('is a schemaVersion 39 dashboard with a Prometheus ${datasource} variable', () => {
    const d = dashboard();
    expect(d.schemaVersion).to.equal(39);
    expect(d.uid).to.equal('pve-provisioner');
    const variable = d.templating.list.find((v) => v.name === 'datasource');
    expect(variable).to.include({ type: 'datasource', query: 'prometheus' });
  });

  it('queries through ${datasource} in every panel and target, panel ids unique', () => {
    const panels = graphs();
    expect(new Set(dashboard().panels.map((p) => p.id)).size).to.equal(dashboard().panels.length);
    for (const panel of panels) {
      expect(panel.datasource?.uid, panel.title).to.equal('${datasource}');
      expect(panel.targets ?? [], panel.title).to.not.be.empty;
      for (const target of panel.targets ?? []) expect(target.datasource?.uid, panel.title).to.equal('${datasource}');
    }
  });

  it('has a panel for each thing the issue lists', () => {
    const exprs = graphs().flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    for (const [what, pattern] of WANTED) expect(exprs.some((e) => pattern.test(e)), what).to.equal(true);
  });

  it('has a row per Proxmox cluster (SPEC 32): a $cluster variable of the clusters pvep_cluster_up names, and a row repeated by it holding its panels', () => {
    const d = dashboard();
    const variable = d.templating.list.find((v) => v.name === 'cluster');
    expect(variable).to.include({ type: 'query', multi: true, includeAll: true });
    expect(variable?.datasource?.uid).to.equal('${datasource}');
    const query = typeof variable?.query === 'string' ? variable.query : variable?.query.query;
    expect(query).to.equal('label_values(pvep_cluster_up, cluster)');
    const row = d.panels.find((p) => p.type === 'row' && p.repeat === 'cluster');
    expect(row?.title).to.contain('$cluster');
    // A repeated row repeats the panels below it, up to the next row: the last row, so every panel after it.
    const below = d.panels.filter((p) => p.type !== 'row' && row !== undefined && p.gridPos.y > row.gridPos.y);
    expect(d.panels.filter((p) => p.type === 'row' && row !== undefined && p.gridPos.y > row.gridPos.y)).to.deep.equal([]);
    expect(below.length).to.be.greaterThan(0);
    for (const panel of below) for (const target of panel.targets ?? []) expect(target.expr, panel.title).to.contain('cluster=~"$cluster"');
  });

  it('keeps two clusters\' nodes of one name apart in the node panels (SPEC 32)', () => {
    const byNode = dashboardQueries().filter((q) => /pvep_(node_healthy|node_health_reasons|image_healthy)/.test(q) && !q.includes('$cluster'));
    expect(byNode).to.have.length(3);
    expect(byNode.filter((q) => !/by \([^)]*\bcluster\b[^)]*\bnode\b/.test(q))).to.deep.equal([]);
  });

  it('splits job metrics by their job_name label, never by exported_job (the rename of a clashing job label)', () => {
    const byJob = dashboardQueries().filter((q) => /pvep_(job_duration_seconds|lock_waits_total)/.test(q));
    expect(byJob).to.have.length.greaterThan(0);
    expect(byJob.filter((q) => !/by \([^)]*\bjob_name\b/.test(q))).to.deep.equal([]);
    expect(JSON.stringify(dashboard())).to.not.contain('exported_job');
  });

  it('holds only PromQL that Prometheus parses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pvep-dashboard-'));
    try {
      // Grafana's interval variables become a plain range for the parser.
      const rules = dashboardQueries().map((expr, i) => ({ record: `dashboard:query_${i}`, expr: expr.replaceAll('$__rate_interval', '5m').replaceAll('$__range', '1h') }));
      const file = join(dir, 'dashboard-queries.yml');
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      const run = await promtool(['check', 'rules', file]);
      expect(run.code, `${run.stdout}${run.stderr}`).to.equal(0);
      expect(run.stdout).to.contain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
