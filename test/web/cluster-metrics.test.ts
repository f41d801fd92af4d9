// SPEC 32 (issue 34): "a `cluster` label on the metrics where it matters".
// pvep_cluster_up{cluster} is 1 for a cluster up or degraded, 0 for one
// away and absent for one no health result names; pvep_cluster_nodes_healthy
// counts its nodes fit; both read the last health result at the scrape.
// The node health series carry `cluster` only with several clusters: the
// one-cluster form's lines are as they were. Also through GET /metrics of
// the web app, on the real Redis.
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { DEFAULT_CLUSTER } from '../../src/config/clusters.js';
import type { NodeHealth } from '../../src/provider/types.js';
import type { LastHealth } from '../../src/queue/health-store.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { ONE_CLUSTER, registerNodeHealthGauges, type HealthClusters } from '../../src/web/node-health-metrics.js';
import { parseSamples, valueOf, type Sample } from '../support/prometheus-scrape.js';
import { EAST_UP_WEST_AWAY, TWO_CLUSTERS_ENV } from '../support/two-clusters.js';
import { buildTestWeb } from './helpers.js';

const TWO: HealthClusters = { all: [{ name: 'east' }, { name: 'west' }, { name: 'north' }], labelled: true };

async function scrapeOf(nodes: NodeHealth[] | undefined, clusters: HealthClusters = TWO): Promise<{ text: string; samples: Sample[] }> {
  const registry = new Registry();
  const last: LastHealth | undefined = nodes === undefined ? undefined : { at: '2030-01-02T03:04:05Z', nodes };
  registerNodeHealthGauges(registry, () => Promise.resolve(last), () => undefined, clusters);
  const text = await registry.metrics();
  return { text, samples: parseSamples(text) };
}

const series = (samples: Sample[], name: string): string[] =>
  samples
    .filter((s) => s.name === name)
    .map((s) => `${Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(',')} ${s.value}`)
    .sort();

describe('the clusters on /metrics (SPEC 32)', () => {
  it('gives pvep_cluster_up 1 for a cluster up, 0 for one away, and no series for one no result names', async () => {
    const { samples } = await scrapeOf(EAST_UP_WEST_AWAY);
    expect(series(samples, 'pvep_cluster_up')).to.deep.equal(['cluster=east 1', 'cluster=west 0']);
    expect(series(samples, 'pvep_cluster_nodes_healthy')).to.deep.equal(['cluster=east 1', 'cluster=west 0']);
  });

  it('counts a degraded cluster (it answered, no node fit) as up, with no node healthy', async () => {
    const { samples } = await scrapeOf([{ node: 'pve1', cluster: 'east', ok: false, reasons: [{ reason: 'StorageNotFound', detail: 'storage local-lvm does not exist' }] }]);
    expect(valueOf(samples, 'pvep_cluster_up', { cluster: 'east' })).to.equal(1);
    expect(valueOf(samples, 'pvep_cluster_nodes_healthy', { cluster: 'east' })).to.equal(0);
  });

  it('labels node and image health with the cluster, so two clusters\' pve1 stay apart', async () => {
    const nodes: NodeHealth[] = [...EAST_UP_WEST_AWAY.slice(0, 1).map((n) => ({ ...n, images: [{ image: 'default', ok: true, reasons: [] }] })), ...EAST_UP_WEST_AWAY.slice(2, 3)];
    const { samples } = await scrapeOf(nodes);
    expect(series(samples, 'pvep_node_healthy')).to.deep.equal(['cluster=east,node=pve1 1', 'cluster=west,node=pve1 0']);
    expect(series(samples, 'pvep_node_health_reasons')).to.deep.equal(['cluster=west,node=pve1,reason=Unreachable 1']);
    expect(series(samples, 'pvep_image_healthy')).to.deep.equal(['image=default,cluster=east,node=pve1 1']);
  });

  it('keeps the one-cluster form\'s node lines as they were, and names its cluster `default`', async () => {
    const { text, samples } = await scrapeOf(
      [
        { node: 'pve1', ok: true, reasons: [], images: [{ image: 'default', ok: true, reasons: [] }] },
        { node: 'pve2', ok: false, reasons: [{ reason: 'NodeOffline', detail: 'status offline' }] },
      ],
      ONE_CLUSTER,
    );
    expect(text).to.contain('\npvep_node_healthy{node="pve1"} 1\n');
    expect(text).to.contain('\npvep_node_health_reasons{node="pve2",reason="NodeOffline"} 1\n');
    expect(text).to.contain('\npvep_image_healthy{image="default",node="pve1"} 1\n');
    expect(series(samples, 'pvep_cluster_up')).to.deep.equal([`cluster=${DEFAULT_CLUSTER} 1`]);
  });

  it('gives no cluster series without a health result, and declares both gauges', async () => {
    const { text, samples } = await scrapeOf(undefined);
    expect(samples.filter((s) => s.name.startsWith('pvep_cluster_'))).to.deep.equal([]);
    expect(text).to.contain('# TYPE pvep_cluster_up gauge');
    expect(text).to.contain('# TYPE pvep_cluster_nodes_healthy gauge');
  });

  it('serves them on the web app\'s /metrics with several clusters configured', async () => {
    const web = await buildTestWeb({ metricsCacheSeconds: 0 }, { env: TWO_CLUSTERS_ENV });
    try {
      await writeLastHealth(web.redis, web.prefix, EAST_UP_WEST_AWAY);
      const res = await web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } });
      const samples = parseSamples(res.body);
      expect(series(samples, 'pvep_cluster_up')).to.deep.equal(['cluster=east 1', 'cluster=west 0']);
      expect(valueOf(samples, 'pvep_node_healthy', { cluster: 'west', node: 'pve3' })).to.equal(0);
    } finally {
      await web.close();
    }
  });
});
