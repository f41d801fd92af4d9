// SPEC 30 (issue 32) over HTTP: a create of a warm pool's shape is
// answered 202 with origin pool when an idle member was there, cold when
// none was or the create asked pool false; a create of a member's reserved
// name is a 400 naming name; the OpenAPI document has origin on the
// answer, pool on the create and claim in the create job's data.
import { expect } from 'chai';
import type { PoolConfig } from '../../src/pools/types.js';
import { poolWorld, type PoolWorld } from '../support/pool-members.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const IMAGES = [{ name: 'ubuntu', templates: { pve1: 9001, pve2: 9002 }, user: 'ubuntu' }];
const POOLS = [{ name: 'web', minIdle: 1 }];

describe('HTTP API: warm pools (SPEC 30)', () => {
  let web: TestWeb;
  let world: PoolWorld;
  beforeEach(async () => {
    web = await buildTestWeb({}, { env: { PROXMOX_IMAGES: JSON.stringify(IMAGES), POOLS: JSON.stringify(POOLS) } });
    world = poolWorld(web.redis, web.prefix, web.config);
  });
  afterEach(async () => {
    await world.queues.close();
    await web.close();
  });

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const post = (payload: object) => web.app.inject({ method: 'POST', url: '/v1/vms', headers: auth(), payload });

  it('the 202 says origin pool when the create claimed an idle member, cold when it asked pool false or none was idle', async () => {
    const member = await world.idleMember(web.config.pools[0] as PoolConfig, 100401, 'pve1');
    const cold = await post({ name: 'asked-cold', pool: false });
    expect(cold.statusCode).to.equal(202);
    expect(cold.json()).to.include({ origin: 'cold' });
    const warm = await post({ name: 'warm-1' });
    expect(warm.statusCode).to.equal(202);
    expect(warm.json()).to.include({ origin: 'pool' });
    const job = (await web.app.inject({ method: 'GET', url: `/v1/jobs/${warm.json<{ jobId: string }>().jobId}`, headers: auth() })).json<{ data: { claim: { member: string } } }>();
    expect(job.data.claim.member).to.equal(member.name);
    expect((await post({ name: 'warm-2' })).json()).to.include({ origin: 'cold' });
  });

  it('counts a miss only for a fresh create of the shape that found no idle VM: not its repeat, nor an in-place change to the shape, nor a claim', async () => {
    const misses = async (): Promise<number> => (await web.metrics.poolMissesTotal.get()).values.find((v) => v.labels.pool === 'web')?.value ?? 0;
    const fresh = await post({ name: 'miss-1' });
    expect(fresh.json()).to.include({ origin: 'cold', warmPool: 'web' });
    expect(await misses()).to.equal(1);
    await post({ name: 'miss-1' });
    expect(await misses(), 'a repeat').to.equal(1);
    await post({ name: 'miss-2', cores: 4 });
    const inPlace = await post({ name: 'miss-2' });
    expect(inPlace.json()).to.include({ origin: 'cold' }).and.not.have.property('warmPool');
    expect(await misses(), 'an in-place change to the pool shape tried no claim').to.equal(1);
    await world.idleMember(web.config.pools[0] as PoolConfig, 100411, 'pve1');
    expect((await post({ name: 'hit-1' })).json()).to.include({ origin: 'pool', warmPool: 'web' });
    expect(await misses()).to.equal(1);
  });

  it("a create of a member's reserved name is a 400 naming name", async () => {
    const res = await post({ name: 'pvep-pool-web-1' });
    expect(res.statusCode).to.equal(400);
    expect(res.json<{ fields: { field: string }[] }>().fields.map((f) => f.field)).to.deep.equal(['name']);
  });

  it('the OpenAPI document has origin on the answer, pool on the create, claim in the create job', async () => {
    type Properties = Record<string, { type?: string; enum?: string[]; default?: unknown; required?: string[] }>;
    type Doc = {
      components: { schemas: Record<string, { properties: Properties }> };
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { properties: Properties } }> } }>>;
    };
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<Doc>();
    const { schemas } = doc.components;
    expect(schemas.Enqueued?.properties.origin).to.deep.include({ type: 'string', enum: ['pool', 'cold'] });
    expect(schemas.CreateJobData?.properties.claim).to.deep.include({ type: 'object', required: ['pool', 'member', 'memberUid', 'vmid', 'node', 'claimedAt'] });
    expect(schemas.CreateJobData?.properties, 'the stored job has no pool').not.to.have.property('pool');
    expect(doc.paths['/vms']?.post?.requestBody.content['application/json']?.schema.properties.pool).to.deep.include({ type: 'boolean', default: true });
  });
});
