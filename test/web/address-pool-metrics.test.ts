// SPEC 29 (issue 31): "Metrics: addresses in use and free per pool". The
// web app's /metrics reads each configured pool's addresses from Redis at
// the scrape: in use (leased), cooling (freed, resting its cooldown) and
// free, as pvep_address_pool_addresses{pool, state}; promtool accepts the
// text; while Redis is down the scrape answers without the pool series.
import { expect } from 'chai';
import { keys } from '../../src/redis-keys.js';
import { putLease, testPool } from '../support/address-leases.js';
import { parseSamples, valueOf } from '../support/prometheus-scrape.js';
import { promtool } from '../support/promtool.js';
import type { RedisDown } from '../../src/web/redis-down.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const LAB = testPool({ cidr: '127.77.0.0/28' });
const EDGE = testPool({ name: 'edge', bridge: 'vmbr2', cidr: '127.78.0.0/24', gateway: '127.78.0.1', exclude: ['127.78.0.200', '127.78.0.201', '127.78.0.202', '127.78.0.203', '127.78.0.204', '127.78.0.205', '127.78.0.206', '127.78.0.207'] });

describe('the address pools on /metrics (SPEC 29)', () => {
  let web: TestWeb;
  let down: RedisDown | undefined;
  const scrape = async (): Promise<string> => {
    const res = await web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } });
    expect(res.statusCode).to.equal(200);
    return res.body;
  };

  before(async () => {
    web = await buildTestWeb({ metricsCacheSeconds: 0 }, { networks: [LAB, EDGE], redisDown: () => down });
  });
  after(() => web.close());

  it('gives each pool its addresses in use, cooling and free, read from Redis at the scrape', async () => {
    await putLease(web.redis, web.prefix, { name: 'a', uid: 'u1', pool: 'lab', address: '127.77.0.2' });
    await putLease(web.redis, web.prefix, { name: 'b', uid: 'u2', pool: 'lab', address: '127.77.0.3' });
    await web.redis.zadd(keys.addressCooling(web.prefix, 'lab'), Date.now() + 600_000, '127.77.0.4');
    const samples = parseSamples(await scrape());
    const value = (pool: string, state: string): number | undefined => valueOf(samples, 'pvep_address_pool_addresses', { pool, state });
    // lab: 14 hosts less the gateway; edge: 254 less the gateway and 8 excluded.
    expect([value('lab', 'in_use'), value('lab', 'cooling'), value('lab', 'free')]).to.deep.equal([2, 1, 10]);
    expect([value('edge', 'in_use'), value('edge', 'cooling'), value('edge', 'free')]).to.deep.equal([0, 0, 245]);

    await putLease(web.redis, web.prefix, { name: 'c', uid: 'u3', pool: 'edge', address: '127.78.0.9' });
    expect(valueOf(parseSamples(await scrape()), 'pvep_address_pool_addresses', { pool: 'edge', state: 'in_use' })).to.equal(1);
  });

  it('promtool check metrics accepts the scrape: exit 0, nothing said', async () => {
    const run = await promtool(['check', 'metrics'], await scrape());
    expect({ code: run.code, said: `${run.stdout}${run.stderr}` }).to.deep.equal({ code: 0, said: '' });
  });

  it('answers without the pool series while Redis is down', async () => {
    down = { message: 'Redis at 127.0.0.1:6379 is not reachable', retryAfterSeconds: 5 };
    try {
      const text = await scrape();
      expect(text).to.contain('# TYPE pvep_address_pool_addresses gauge');
      expect(parseSamples(text).filter((s) => s.name === 'pvep_address_pool_addresses')).to.deep.equal([]);
    } finally {
      down = undefined;
    }
  });
});
