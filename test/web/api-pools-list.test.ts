// SPEC 30: GET /v1/pools, behind the bearer token like the other /v1
// routes: each configured pool's shape, minIdle, maxIdle, maxAgeMinutes and
// its VMs idle, claimed and creating, counted from the pool store (the
// in-memory fake here: the store is not under test), and documented.
import { expect } from 'chai';
import { shapeFingerprint } from '../../src/pools/fingerprint.js';
import { listPoolViews } from '../../src/pools/pool-view.js';
import type { PoolConfig } from '../../src/pools/types.js';
import { InMemoryPoolStore } from '../fakes/pool-store.js';
import { buildTestWeb } from './helpers.js';
import type { TestWeb } from './helpers.js';

const small: PoolConfig = { name: 'small', image: 'default', cores: 1, memoryMiB: 512, diskGiB: 10, minIdle: 3, maxIdle: 4, maxAgeMinutes: 60 };
const fp = shapeFingerprint(small);
const big: PoolConfig = { name: 'big', image: 'default', cores: 4, memoryMiB: 4096, diskGiB: 40, node: 'pve1', minIdle: 1, maxIdle: 1, maxAgeMinutes: 0 };

describe('GET /v1/pools (SPEC 30)', () => {
  let web: TestWeb | undefined;
  let store: InMemoryPoolStore;

  beforeEach(async () => {
    store = new InMemoryPoolStore();
    for (let i = 0; i < 4; i += 1) await store.addMember(small, fp, `u${i}`, new Date());
    await store.markIdle(store.entries.get('pvep-pool-small-1')!, fp);
    await store.markIdle(store.entries.get('pvep-pool-small-2')!, fp);
    store.claim('pvep-pool-small-2', 'foo 3');
    // Taken by a drain: neither idle nor creating.
    await store.markIdle(store.entries.get('pvep-pool-small-3')!, fp);
    await store.takeForDrain('small', 'pvep-pool-small-3');
  });

  afterEach(async () => {
    await web?.close();
    web = undefined;
  });

  it("answers each configured pool's shape and bounds with its VMs counted", async () => {
    web = await buildTestWeb({}, { pools: { listPools: () => listPoolViews([small, big], store) } });
    const res = await web.app.inject({ method: 'GET', url: '/v1/pools', headers: { authorization: `Bearer ${web.token}` } });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({
      pools: [
        { ...small, idle: 1, claimed: 1, creating: 1, target: 3 },
        { ...big, idle: 0, claimed: 0, creating: 0, target: 1 },
      ],
    });
  });

  it('counts an idle VM of the shape before a change as neither idle nor creating: no create can claim it, the refill drains it', async () => {
    const reshaped: PoolConfig = { ...small, cores: 2 };
    web = await buildTestWeb({}, { pools: { listPools: () => listPoolViews([reshaped], store) } });
    const res = await web.app.inject({ method: 'GET', url: '/v1/pools', headers: { authorization: `Bearer ${web.token}` } });
    expect(res.json()).to.deep.equal({ pools: [{ ...reshaped, idle: 0, claimed: 1, creating: 1, target: 3 }] });
  });

  it('answers the refill\'s target: minIdle plus the creates that tried to claim within the lead time, at most maxIdle', async () => {
    const now = Date.now();
    store.demands.set('small', { leadTimesMs: [60_000], claimTimesMs: [now - 1000, now - 2000, now - 120_000] });
    web = await buildTestWeb({}, { pools: { listPools: () => listPoolViews([small, { ...small, name: 'wide', maxIdle: 10 }], store) } });
    store.demands.set('wide', { leadTimesMs: [60_000], claimTimesMs: [now - 1000, now - 2000, now - 120_000] });
    const res = await web.app.inject({ method: 'GET', url: '/v1/pools', headers: { authorization: `Bearer ${web.token}` } });
    expect(res.json<{ pools: { name: string; target: number }[] }>().pools.map((p) => [p.name, p.target])).to.deep.equal([
      ['small', 4],
      ['wide', 5],
    ]);
  });

  it('needs the token, as every /v1 route', async () => {
    web = await buildTestWeb({}, { pools: { listPools: () => listPoolViews([small], store) } });
    expect((await web.app.inject({ method: 'GET', url: '/v1/pools' })).statusCode).to.equal(401);
  });

  it('answers no pool on a service without pools, through the client', async () => {
    web = await buildTestWeb();
    const res = await web.app.inject({ method: 'GET', url: '/v1/pools', headers: { authorization: `Bearer ${web.token}` } });
    expect(res.json()).to.deep.equal({ pools: [] });
  });

  it('is documented, its answer a PoolList', async () => {
    web = await buildTestWeb();
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: Record<string, { get?: { operationId?: string } }>; components: { schemas: Record<string, { required?: string[] }> } }>();
    expect(doc.paths['/pools']?.get?.operationId).to.equal('listPools');
    expect(doc.components.schemas.Pool?.required).to.include.members(['idle', 'claimed', 'creating', 'minIdle', 'maxIdle', 'maxAgeMinutes']);
  });
});
