// SPEC 34 (issue 33): "Metrics: pvep_tenant_usage{tenant,quota} and
// pvep_tenant_quota{tenant,quota} gauges (configured tenants only:
// bounded), pvep_tenant_refusals_total{tenant,reason}". The gauges read
// the holds' sums from the real Redis at the scrape, as the accept's
// script leaves them; a tenant not in the tokens file gets no series;
// while Redis is down the quotas still answer, the usage does not.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { createMetrics } from '../../src/metrics.js';
import { TenantHoldStore } from '../../src/tenants/hold-store.js';
import type { Tenant } from '../../src/tenants/types.js';
import type { RedisDown } from '../../src/web/redis-down.js';
import { registerTenantGauges, tenantUsageReader } from '../../src/web/tenant-metrics.js';
import { parseSamples, valueOf, type Sample } from '../support/prometheus-scrape.js';
import { deletePrefix, keyPrefix, newRedis, uniquePrefix } from '../support/redis.js';
import { putHold, testHold } from '../support/tenant-holds.js';

const ACME: Tenant = { name: 'acme', scope: 'write', quotas: { vms: 10, cores: 32, memoryMiB: 65536, createsPerMinute: 6 } };
// A second token line of the same tenant (a read token): the same quotas, no second series.
const ACME_READ: Tenant = { ...ACME, scope: 'read' };
const BETA: Tenant = { name: 'beta', scope: 'write', quotas: {} };

describe("the tenants' usage and quotas on /metrics (SPEC 34)", () => {
  let redis: Redis;
  let prefix: string;
  let registry: Registry;
  let down: RedisDown | undefined;
  const scrape = async (): Promise<Sample[]> => parseSamples(await registry.metrics());
  const series = (samples: Sample[], name: string): string[] => samples.filter((s) => s.name === name).map((s) => `${s.labels.tenant ?? ''} ${s.labels.quota ?? ''} ${s.value}`).sort();

  beforeEach(() => {
    redis = newRedis();
    prefix = keyPrefix(uniquePrefix('tenant-metrics'));
    registry = new Registry();
    down = undefined;
    registerTenantGauges(registry, [ACME, ACME_READ, BETA], tenantUsageReader(redis, prefix), () => down);
  });

  afterEach(async () => {
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  it("gives each configured tenant what it holds, read at the scrape, and nothing of a tenant the tokens file does not name", async () => {
    await putHold(redis, prefix, 'web-1', 'u1', testHold('acme', { cores: 2, memoryMiB: 2048, diskGiB: 20 }));
    await putHold(redis, prefix, 'web-2', 'u2', testHold('acme', { cores: 4, memoryMiB: 4096, diskGiB: 40 }));
    await putHold(redis, prefix, 'x-1', 'u3', testHold('gone-tenant'));
    let samples = await scrape();
    expect(series(samples, 'pvep_tenant_usage')).to.deep.equal([
      'acme cores 6',
      'acme diskGiB 60',
      'acme memoryMiB 6144',
      'acme vms 2',
      'beta cores 0',
      'beta diskGiB 0',
      'beta memoryMiB 0',
      'beta vms 0',
    ]);

    await new TenantHoldStore(redis, prefix).release('web-2', 'u2');
    samples = await scrape();
    expect(valueOf(samples, 'pvep_tenant_usage', { tenant: 'acme', quota: 'cores' }), 'a released hold leaves the next scrape').to.equal(2);
  });

  it('gives each configured quota once per tenant, and none for a quota not given', async () => {
    expect(series(await scrape(), 'pvep_tenant_quota')).to.deep.equal(['acme cores 32', 'acme createsPerMinute 6', 'acme memoryMiB 65536', 'acme vms 10']);
  });

  it('answers the quotas without the usage while Redis is down', async () => {
    down = { message: 'Redis at 127.0.0.1:6379 is not reachable', retryAfterSeconds: 5 };
    const samples = await scrape();
    expect(series(samples, 'pvep_tenant_usage')).to.deep.equal([]);
    expect(series(samples, 'pvep_tenant_quota')).to.have.length(4);
  });
});

describe('pvep_tenant_refusals_total (SPEC 34)', () => {
  it('counts refusals by tenant and reason', async () => {
    const metrics = createMetrics();
    metrics.tenantRefused('acme', 'cores');
    metrics.tenantRefused('acme', 'cores');
    metrics.tenantRefused('acme', 'rate');
    const samples = parseSamples(await metrics.registry.metrics());
    expect(valueOf(samples, 'pvep_tenant_refusals_total', { tenant: 'acme', reason: 'cores' })).to.equal(2);
    expect(valueOf(samples, 'pvep_tenant_refusals_total', { tenant: 'acme', reason: 'rate' })).to.equal(1);
  });
});
