// SPEC 31 over HTTP: a create's ttlSeconds answers expiresAt, every view
// of the VM shows it, GET /v1/vms filters by expiringBefore, PUT
// /v1/vms/{name}/lease renews (400 naming the field, 404, 409 without
// shorten or once the expiry stopped the VM), behind the same bearer token as every /v1 route, and the
// OpenAPI document says all of it.
import { expect } from 'chai';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

interface Answer {
  error?: string;
  fields?: { field: string; message: string }[];
  expiresAt?: string;
  onExpiry?: string;
  version?: number;
}

type Doc = {
  paths: Record<string, Record<string, { operationId?: string; parameters?: { name: string }[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, { type?: string; maximum?: number; format?: string }> }> };
};

describe('HTTP API leases (SPEC 31)', () => {
  let web: TestWeb;
  beforeEach(async () => {
    web = await buildTestWeb();
  });
  afterEach(() => web.close());

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const call = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) => web.app.inject({ method, url, headers: auth(), ...(payload === undefined ? {} : { payload: payload as object }) });
  const inHours = (hours: number): string => new Date(Date.now() + hours * 3600_000).toISOString();

  it('a create with ttlSeconds answers expiresAt; GET /v1/vms/{name} and the listing show it and onExpiry', async () => {
    const created = await call('POST', '/v1/vms', { name: 'web-1', ttlSeconds: 3600, onExpiry: 'stop' });
    expect(created.statusCode).to.equal(202);
    const { expiresAt } = created.json<Answer>();
    expect(expiresAt).to.be.a('string');
    expect((await call('GET', '/v1/vms/web-1')).json<Answer>()).to.include({ expiresAt, onExpiry: 'stop' });
    const listed = (await call('GET', '/v1/vms')).json<{ vms: Answer[] }>().vms;
    expect(listed[0]).to.include({ expiresAt, onExpiry: 'stop' });
  });

  it('a create with a ttlSeconds past leases.maxSeconds is a 400 naming ttlSeconds, and nothing is recorded', async () => {
    const res = await call('POST', '/v1/vms', { name: 'web-1', ttlSeconds: web.config.leases.maxSeconds + 1 });
    expect(res.statusCode).to.equal(400);
    expect(res.json<Answer>().fields?.map((f) => f.field)).to.deep.equal(['ttlSeconds']);
    expect((await call('GET', '/v1/vms/web-1')).statusCode).to.equal(404);
  });

  it('GET /v1/vms?expiringBefore= lists only the names whose lease ends before then; a bad time is a 400 naming it', async () => {
    await call('POST', '/v1/vms', { name: 'soon', ttlSeconds: 60 });
    await call('POST', '/v1/vms', { name: 'late', ttlSeconds: 7200 });
    await call('POST', '/v1/vms', { name: 'never' });
    const res = await call('GET', `/v1/vms?expiringBefore=${encodeURIComponent(inHours(1))}`);
    expect(res.statusCode).to.equal(200);
    expect(res.json<{ vms: { name: string }[] }>().vms.map((vm) => vm.name)).to.deep.equal(['soon']);
    const bad = await call('GET', '/v1/vms?expiringBefore=yesterday');
    expect(bad.statusCode).to.equal(400);
    expect(bad.json<Answer>().fields?.map((f) => f.field)).to.deep.equal(['expiringBefore']);
  });

  it('PUT /v1/vms/{name}/lease moves the expiry and answers the lease; earlier needs shorten (409); past max is a 400 naming the field; an unknown name is a 404', async () => {
    const created = (await call('POST', '/v1/vms', { name: 'web-1', ttlSeconds: 60 })).json<Answer>();
    const renewed = await call('PUT', '/v1/vms/web-1/lease', { ttlSeconds: 7200 });
    expect(renewed.statusCode).to.equal(200);
    const lease = renewed.json<Answer>();
    expect(lease).to.include({ onExpiry: 'delete', version: 2 });
    expect(Date.parse(lease.expiresAt ?? '')).to.be.greaterThan(Date.parse(created.expiresAt ?? ''));
    expect((await call('GET', '/v1/vms/web-1')).json<Answer>().expiresAt).to.equal(lease.expiresAt);

    const earlier = await call('PUT', '/v1/vms/web-1/lease', { ttlSeconds: 60 });
    expect(earlier.statusCode).to.equal(409);
    expect(earlier.json<Answer>()).to.include({ error: 'Conflict', expiresAt: lease.expiresAt });
    expect((await call('PUT', '/v1/vms/web-1/lease', { ttlSeconds: 60, shorten: true })).statusCode).to.equal(200);

    const tooLong = await call('PUT', '/v1/vms/web-1/lease', { expiresAt: new Date(Date.now() + (web.config.leases.maxSeconds + 3600) * 1000).toISOString() });
    expect(tooLong.statusCode).to.equal(400);
    expect(tooLong.json<Answer>().fields?.map((f) => f.field)).to.deep.equal(['expiresAt']);
    const unknownField = await call('PUT', '/v1/vms/web-1/lease', { ttlSeconds: 60, ttl: 5 });
    expect(unknownField.json<Answer>().fields?.map((f) => f.field)).to.deep.equal(['ttl']);
    expect((await call('PUT', '/v1/vms/nobody/lease', { ttlSeconds: 60 })).statusCode).to.equal(404);
  });

  it('PUT /v1/vms/{name}/lease of a lease whose expiry stopped the VM is a 409 naming when it ended, and changes nothing', async () => {
    const created = (await call('POST', '/v1/vms', { name: 'web-1', ttlSeconds: 60, onExpiry: 'stop' })).json<Answer>();
    const registry = new DesiredStateRegistry(web.redis, web.prefix, 60);
    expect(await registry.expireLease('web-1', 1, new Date(Date.now() + 3600_000))).to.deep.include({ kind: 'recorded', action: 'stop' });
    const before = await registry.get('web-1');
    const res = await call('PUT', '/v1/vms/web-1/lease', { ttlSeconds: 7200 });
    expect(res.statusCode).to.equal(409);
    expect(res.json<Answer & { message?: string }>()).to.include({ error: 'Conflict', expiresAt: created.expiresAt });
    expect(res.json<{ message?: string }>().message).to.contain('create it again');
    expect(await registry.get('web-1')).to.deep.equal(before);
  });

  it('PUT /v1/vms/{name}/lease needs the bearer token like every /v1 route', async () => {
    await call('POST', '/v1/vms', { name: 'web-1', ttlSeconds: 60 });
    const res = await web.app.inject({ method: 'PUT', url: '/v1/vms/web-1/lease', payload: { ttlSeconds: 7200 } });
    expect(res.statusCode).to.equal(401);
    expect((await call('GET', '/v1/vms/web-1')).json<Answer>().expiresAt).to.not.equal(undefined);
  });

  it('the OpenAPI document has the create fields, expiresAt on Vm and Enqueued, expiringBefore and PUT /vms/{name}/lease', async () => {
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<Doc>();
    const post = doc.paths['/vms']?.post as unknown as { requestBody: { content: { 'application/json': { schema: { properties: Record<string, { maximum?: number; default?: unknown }> } } } } };
    const body = post.requestBody.content['application/json'].schema.properties;
    expect(body.ttlSeconds).to.include({ maximum: web.config.leases.maxSeconds, default: web.config.leases.defaultSeconds });
    expect(body.onExpiry).to.include({ default: 'delete' });
    for (const schema of ['Vm', 'Enqueued']) expect(doc.components.schemas[schema]?.properties?.expiresAt, schema).to.include({ type: 'string', format: 'date-time' });
    expect(doc.paths['/vms']?.get?.parameters?.map((p) => p.name)).to.include('expiringBefore');
    expect(doc.paths['/vms/{name}/lease']?.put?.operationId).to.equal('renewLease');
    expect(doc.components.schemas.LeaseRenewal?.properties?.ttlSeconds).to.include({ maximum: web.config.leases.maxSeconds });
  });
});
