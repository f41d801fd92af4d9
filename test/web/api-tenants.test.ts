// SPEC 34 over HTTP: each request speaks for its token's tenant (the
// tokens file's words), a `read` token only GETs, GET /v1/tenants and
// /metrics want an admin token, GET /v1/tenants/me answers the caller's
// tenant, and the tenants' refusals map to 403, 429, 409 and 404. The
// routes run on the real Redis and client; where the client's tenant
// calls (another branch's) would decide, a fake given the tenant stands in.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { NameNotFoundError, NameTakenError, QuotaExceededError, RateLimitedError, ScopeError } from '../../src/client.js';
import { NO_USAGE, type Tenant } from '../../src/tenants/types.js';
import { SecretSet } from '../../src/web/auth/compare.js';
import type { TenantCalls } from '../../src/web/deps.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

interface Answer {
  error?: string;
  message?: string;
}

const newToken = (what: string): string => `${what}-${randomBytes(16).toString('hex')}`;

describe('HTTP API tenants (SPEC 34)', () => {
  const READ = newToken('read');
  const WRITE = newToken('write');
  const BETA = newToken('beta');
  let web: TestWeb;
  /** `<tenant>/<scope>` of each request's asTenant call, in order. */
  let asked: string[];
  /** What the fake tenant calls throw, by call. */
  let throwing: Partial<Record<'createVm' | 'deleteVm' | 'enqueueJob', Error>>;

  /** The tenant's own calls; beta, as the client's filter would, finds no job it did not make. */
  const tenantCalls = (calls: TenantCalls, tenant: Tenant): TenantCalls => {
    asked.push(`${tenant.name}/${tenant.scope}`);
    const orThrow =
      <A extends unknown[], R>(call: 'createVm' | 'deleteVm' | 'enqueueJob', real: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => {
        const failure = throwing[call];
        return failure === undefined ? real(...args) : Promise.reject(failure);
      };
    const notBetas = tenant.name === 'beta';
    return {
      ...calls,
      createVm: orThrow('createVm', calls.createVm),
      deleteVm: orThrow('deleteVm', calls.deleteVm),
      enqueueJob: orThrow('enqueueJob', calls.enqueueJob),
      getJob: (id) => (notBetas ? Promise.resolve(undefined) : calls.getJob(id)),
      waitForJob: (id, options) => (notBetas ? Promise.reject(new Error(`no job ${id}`)) : calls.waitForJob(id, options)),
      tenantUsage: () => Promise.resolve({ tenant: tenant.name, scope: tenant.scope, quotas: tenant.quotas, usage: { ...NO_USAGE, vms: 1 } }),
      listTenantUsage: (known = []) => Promise.resolve(known.map((t) => ({ tenant: t.name, quotas: t.quotas, usage: NO_USAGE }))),
    };
  };

  beforeEach(async () => {
    throwing = {};
    asked = [];
    web = await buildTestWeb(
      {},
      {
        tokenLines: [`${READ} tenant=acme scope=read`, `${WRITE} tenant=acme vms=3 cores=8 webhookUrl=https://acme.example/hooks`, `${BETA} tenant=beta`],
        tenantCalls,
      },
    );
    asked = [];
  });
  afterEach(() => web.close());

  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const request = (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    web.app.inject({ method, url, headers: as(token), ...(payload === undefined ? {} : { payload }) });
  const vmJobs = (): Promise<number> => web.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active', 'completed', 'failed');

  describe('scopes', () => {
    const writes: ['POST' | 'PUT' | 'DELETE', string, object | undefined][] = [
      ['POST', '/v1/vms', { name: 'tenant-a' }],
      ['DELETE', '/v1/vms/tenant-a', undefined],
      ['POST', '/v1/vms/tenant-a/check', undefined],
      ['PUT', '/v1/vms/tenant-a/lease', { ttlSeconds: 60 }],
    ];
    for (const [method, url, payload] of writes) {
      it(`a read token's ${method} ${url} is 403 Forbidden, and the service is not asked`, async () => {
        const res = await request(READ, method, url, payload);
        expect(res.statusCode, res.body).to.equal(403);
        expect(res.json<Answer>()).to.deep.equal({ error: 'Forbidden', message: `tenant acme's token has the read scope, which may not ${method} ${url.replace('tenant-a', ':name')}` });
        expect(res.body).to.not.contain(READ);
        expect(asked).to.deep.equal([]);
        expect(await vmJobs()).to.equal(0);
      });
    }

    it("a read token's create is refused before its body is read: a broken body is still 403, not 400", async () => {
      const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { ...as(READ), 'content-type': 'application/json' }, payload: '{"name": ' });
      expect(res.statusCode).to.equal(403);
    });

    it('a read token GETs, as its tenant', async () => {
      expect((await request(READ, 'GET', '/v1/vms')).statusCode).to.equal(200);
      expect((await request(READ, 'GET', '/v1/vms/tenant-a')).statusCode).to.equal(404);
      expect(asked).to.deep.equal(['acme/read', 'acme/read']);
    });

    it('a write token creates, checks and deletes as its tenant; a plain token as the default admin', async () => {
      const created = await request(WRITE, 'POST', '/v1/vms', { name: 'tenant-a' });
      expect(created.statusCode, created.body).to.equal(202);
      expect((await request(WRITE, 'POST', '/v1/vms/tenant-a/check')).statusCode).to.equal(202);
      expect((await request(WRITE, 'GET', '/v1/vms/tenant-a')).statusCode).to.equal(200);
      expect((await request(web.token, 'DELETE', '/v1/vms/tenant-a')).statusCode).to.equal(202);
      expect(asked).to.deep.equal(['acme/write', 'acme/write', 'acme/write', 'default/admin']);
    });
  });

  describe("jobs: another tenant's is not found", () => {
    it('GET /v1/jobs/:id, its wait and its events answer 404 to another tenant, and the job to its own', async () => {
      const created = await request(WRITE, 'POST', '/v1/vms', { name: 'tenant-job' });
      const { jobId } = created.json<{ jobId: string }>();
      expect((await request(WRITE, 'GET', `/v1/jobs/${jobId}`)).json<{ id: string }>().id).to.equal(jobId);
      for (const url of [`/v1/jobs/${jobId}`, `/v1/jobs/${jobId}?waitSeconds=1`, `/v1/jobs/${jobId}/events`]) {
        const res = await request(BETA, 'GET', url);
        expect(res.statusCode, url).to.equal(404);
        expect(res.json<Answer>(), url).to.deep.equal({ error: 'NotFound', message: `no job ${jobId}` });
      }
      expect(asked.slice(1)).to.deep.equal(['acme/write', 'beta/write', 'beta/write', 'beta/write']);
    });
  });

  describe('/v1/tenants', () => {
    it("GET /v1/tenants/me answers the caller's tenant, scope and quotas", async () => {
      const mine = (token: string) => request(token, 'GET', '/v1/tenants/me').then((res) => res.json<unknown>());
      expect(await mine(WRITE)).to.deep.equal({ tenant: 'acme', scope: 'write', quotas: { vms: 3, cores: 8 }, usage: { ...NO_USAGE, vms: 1 } });
      expect(await mine(READ)).to.deep.equal({ tenant: 'acme', scope: 'read', quotas: { vms: 3, cores: 8 }, usage: { ...NO_USAGE, vms: 1 } });
      expect(await mine(web.token)).to.deep.equal({ tenant: 'default', scope: 'admin', quotas: {}, usage: { ...NO_USAGE, vms: 1 } });
    });

    it('GET /v1/tenants lists every configured tenant to an admin token, and is 403 to a write or read one', async () => {
      const res = await request(web.token, 'GET', '/v1/tenants');
      expect(res.statusCode).to.equal(200);
      expect(res.json<{ tenants: { tenant: string; quotas: object }[] }>().tenants).to.deep.equal([
        { tenant: 'default', quotas: {}, usage: NO_USAGE },
        { tenant: 'acme', quotas: { vms: 3, cores: 8 }, usage: NO_USAGE },
        { tenant: 'beta', quotas: {}, usage: NO_USAGE },
      ]);
      for (const token of [WRITE, READ]) {
        const refused = await request(token, 'GET', '/v1/tenants');
        expect(refused.statusCode).to.equal(403);
        expect(refused.json<Answer>().error).to.equal('Forbidden');
      }
    });
  });

  describe("the tenants' refusals", () => {
    it('QuotaExceededError is 403 QuotaExceeded naming the quota, use, asked and limit', async () => {
      throwing.createVm = new QuotaExceededError('tenant-q', 'acme', 'cores', 6, 4, 8);
      const res = await request(WRITE, 'POST', '/v1/vms', { name: 'tenant-q', cores: 4 });
      expect(res.statusCode).to.equal(403);
      expect(res.json()).to.deep.equal({ error: 'QuotaExceeded', message: throwing.createVm.message, name: 'tenant-q', tenant: 'acme', quota: 'cores', use: 6, asked: 4, limit: 8 });
    });

    it('RateLimitedError is 429 RateLimited with Retry-After', async () => {
      throwing.createVm = new RateLimitedError('tenant-r', 'acme', 10, 7);
      const res = await request(WRITE, 'POST', '/v1/vms', { name: 'tenant-r' });
      expect(res.statusCode).to.equal(429);
      expect(res.headers['retry-after']).to.equal('7');
      expect(res.json()).to.deep.equal({ error: 'RateLimited', message: throwing.createVm.message, name: 'tenant-r', tenant: 'acme', limit: 10, retryAfterSeconds: 7 });
    });

    it('NameTakenError is 409 NameTaken, saying nothing of whose', async () => {
      throwing.createVm = new NameTakenError('tenant-t');
      const res = await request(BETA, 'POST', '/v1/vms', { name: 'tenant-t' });
      expect(res.statusCode).to.equal(409);
      expect(res.json()).to.deep.equal({ error: 'NameTaken', message: 'the name tenant-t is in use; choose another', name: 'tenant-t' });
    });

    it("a ScopeError from the service is 403 Forbidden", async () => {
      throwing.createVm = new ScopeError('acme', 'read', 'create');
      const res = await request(WRITE, 'POST', '/v1/vms', { name: 'tenant-s' });
      expect(res.statusCode).to.equal(403);
      expect(res.json()).to.deep.equal({ error: 'Forbidden', message: "tenant acme's token has the read scope, which may not create" });
    });

    it("NameNotFoundError from a delete or a check is 404 NotFound", async () => {
      throwing.deleteVm = new NameNotFoundError('tenant-n');
      throwing.enqueueJob = new NameNotFoundError('tenant-n');
      for (const [method, url] of [['DELETE', '/v1/vms/tenant-n'], ['POST', '/v1/vms/tenant-n/check']] as const) {
        const res = await request(BETA, method, url);
        expect(res.statusCode, url).to.equal(404);
        expect(res.json(), url).to.deep.equal({ error: 'NotFound', message: 'no present VM is named tenant-n' });
      }
    });
  });

  describe('/metrics and /readyz with http.metricsAuth', () => {
    it('/metrics answers an admin token, is 403 to a write or read token and 401 to none', async () => {
      const metrics = (headers: Record<string, string>) => web.app.inject({ method: 'GET', url: '/metrics', headers });
      expect((await metrics(as(web.token))).statusCode).to.equal(200);
      for (const token of [WRITE, READ]) {
        const res = await metrics(as(token));
        expect(res.statusCode).to.equal(403);
        expect(res.json<Answer>()).to.deep.equal({ error: 'Forbidden', message: `tenant acme's token has the ${token === READ ? 'read' : 'write'} scope, which may not GET /metrics` });
      }
      expect((await metrics({})).statusCode).to.equal(401);
    });

    it("/readyz gives its checks to an admin token, and is 403 to another's", async () => {
      const res = await web.app.inject({ method: 'GET', url: '/readyz', headers: as(WRITE) });
      expect(res.statusCode).to.equal(403);
      const admin = await web.app.inject({ method: 'GET', url: '/readyz', headers: as(web.token) });
      expect(admin.json<{ checks?: unknown }>()).to.have.property('checks');
    });
  });
});

describe('HTTP API tenants with http.authDisabled (SPEC 34)', () => {
  let web: TestWeb;
  let asked: string[];
  before(async () => {
    asked = [];
    web = await buildTestWeb({ authDisabled: true }, {
      tenantCalls: (calls, tenant) => {
        asked.push(`${tenant.name}/${tenant.scope}`);
        return { ...calls, tenantUsage: () => Promise.resolve({ tenant: tenant.name, scope: tenant.scope, quotas: tenant.quotas, usage: NO_USAGE }) };
      },
    });
    asked = [];
  });
  after(() => web.close());

  it('every request is the default tenant, admin', async () => {
    expect((await web.app.inject({ method: 'GET', url: '/v1/tenants/me' })).json()).to.deep.equal({ tenant: 'default', scope: 'admin', quotas: {}, usage: NO_USAGE });
    expect((await web.app.inject({ method: 'POST', url: '/v1/vms', payload: { name: 'open-a' } })).statusCode).to.equal(202);
    expect(asked).to.deep.equal(['default/admin', 'default/admin']);
  });
});

describe('constant-time secret set: which one matched (SPEC 34)', () => {
  it('gives the index of the stored secret the candidate is, -1 for none', () => {
    const set = new SecretSet(['alpha-token', 'beta-token', 'gamma-token']);
    expect(set.indexOf('alpha-token')).to.equal(0);
    expect(set.indexOf('gamma-token')).to.equal(2);
    expect(set.indexOf('beta-toke')).to.equal(-1);
    expect(set.indexOf('')).to.equal(-1);
    expect(set.has('beta-token')).to.equal(true);
  });
});

describe('OpenAPI document: tenants (SPEC 34)', () => {
  let web: TestWeb;
  before(async () => (web = await buildTestWeb()));
  after(() => web.close());

  it('documents GET /tenants and /tenants/me, a write\'s 403, a create\'s 429 and a name call\'s 404', async () => {
    type Operation = { operationId?: string; responses: Record<string, { description: string; headers?: object }> };
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } }>();
    expect(doc.paths['/tenants']?.get?.operationId).to.equal('listTenants');
    expect(doc.paths['/tenants']?.get?.responses).to.have.property('403');
    expect(doc.paths['/tenants/me']?.get?.operationId).to.equal('getOwnTenant');
    const create = doc.paths['/vms']?.post?.responses ?? {};
    expect(create['403']?.description).to.contain('QuotaExceeded');
    expect(create['429']?.headers).to.have.property('Retry-After');
    expect(create['409']?.description).to.contain('NameTaken');
    for (const [path, method] of [['/vms/{name}', 'delete'], ['/vms/{name}/check', 'post'], ['/vms/{name}/lease', 'put']] as const) {
      expect(doc.paths[path]?.[method]?.responses, `${method} ${path}`).to.include.keys('403', '404');
    }
    expect(doc.components.schemas).to.include.keys('TenantUsageView', 'TenantList');
  });
});
