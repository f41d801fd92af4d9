// SPEC 30: "metrics: idle per pool, claims, misses, claim latency
// histogram". The web app's /metrics reads each pool's idle VMs and minIdle
// at the scrape (the pools' listing over the in-memory store fake: the
// store is not under test); the process's metrics count claims and misses
// per pool and time claims; promtool accepts the text; while Redis is down
// the scrape answers without the pool series.
import { expect } from 'chai';
import { createMetrics } from '../../src/metrics.js';
import { shapeFingerprint } from '../../src/pools/fingerprint.js';
import { listPoolViews } from '../../src/pools/pool-view.js';
import type { PoolConfig } from '../../src/pools/types.js';
import type { RedisDown } from '../../src/web/redis-down.js';
import { InMemoryPoolStore } from '../fakes/pool-store.js';
import { parseSamples, valueOf } from '../support/prometheus-scrape.js';
import { promtool } from '../support/promtool.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const small: PoolConfig = { name: 'small', image: 'default', cores: 1, memoryMiB: 512, diskGiB: 10, minIdle: 2, maxIdle: 2, maxAgeMinutes: 0 };
const big: PoolConfig = { ...small, name: 'big', cores: 4, minIdle: 1, maxIdle: 1 };

describe('the warm pools on /metrics (SPEC 30)', () => {
  let web: TestWeb;
  let down: RedisDown | undefined;
  const store = new InMemoryPoolStore();
  const scrape = async (): Promise<string> => {
    const res = await web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } });
    expect(res.statusCode).to.equal(200);
    return res.body;
  };

  before(async () => {
    web = await buildTestWeb({ metricsCacheSeconds: 0 }, { pools: { listPools: () => listPoolViews([small, big], store) }, redisDown: () => down });
  });
  after(() => web.close());

  it("gives each pool its idle VMs and its minIdle, read at the scrape", async () => {
    const member = await store.addMember(small, shapeFingerprint(small), 'u1', new Date());
    await store.markIdle(member, shapeFingerprint(small));
    const samples = parseSamples(await scrape());
    expect(valueOf(samples, 'pvep_pool_idle_vms', { pool: 'small' })).to.equal(1);
    expect(valueOf(samples, 'pvep_pool_idle_vms', { pool: 'big' })).to.equal(0);
    expect(valueOf(samples, 'pvep_pool_min_idle_vms', { pool: 'small' })).to.equal(2);
    expect(valueOf(samples, 'pvep_pool_min_idle_vms', { pool: 'big' })).to.equal(1);
  });

  it('promtool check metrics accepts the scrape, with claims, misses and the claim histogram', async () => {
    const metrics = createMetrics();
    metrics.poolClaimed('small', 1.2);
    metrics.poolMissed('small');
    const text = await metrics.registry.metrics();
    const samples = parseSamples(text);
    expect(valueOf(samples, 'pvep_pool_claims_total', { pool: 'small' })).to.equal(1);
    expect(valueOf(samples, 'pvep_pool_misses_total', { pool: 'small' })).to.equal(1);
    expect(valueOf(samples, 'pvep_pool_claim_seconds_bucket', { le: '2' })).to.equal(1);
    expect(valueOf(samples, 'pvep_pool_claim_seconds_bucket', { le: '1' })).to.equal(0);
    for (const said of [await scrape(), text]) {
      const run = await promtool(['check', 'metrics'], said);
      expect({ code: run.code, said: `${run.stdout}${run.stderr}` }).to.deep.equal({ code: 0, said: '' });
    }
  });

  it('answers without the pool series while Redis is down', async () => {
    down = { message: 'Redis at 127.0.0.1:6379 is not reachable', retryAfterSeconds: 5 };
    try {
      const text = await scrape();
      expect(text).to.contain('# TYPE pvep_pool_idle_vms gauge');
      expect(parseSamples(text).filter((s) => s.name === 'pvep_pool_idle_vms' || s.name === 'pvep_pool_min_idle_vms')).to.deep.equal([]);
    } finally {
      down = undefined;
    }
  });
});
