// SPEC 6 auth: bearer tokens for /v1, basic auth for Bull Board, both on
// by default; /healthz and /readyz open; /metrics behind a token only
// with http.metricsAuth; http.authDisabled opens everything. No answer
// ever carries a secret (SPEC 22).
import { expect } from 'chai';
import { basicHeader, buildTestWeb, type TestWeb } from './helpers.js';

describe('HTTP auth (SPEC 6)', () => {
  describe('with auth on (the default)', () => {
    let web: TestWeb;
    before(async () => {
      web = await buildTestWeb();
    });
    after(() => web.close());

    const v1Routes: [string, string][] = [
      ['GET', '/v1/vms'],
      ['POST', '/v1/vms'],
      ['GET', '/v1/vms/web-a'],
      ['DELETE', '/v1/vms/web-a'],
      ['POST', '/v1/vms/web-a/check'],
      ['GET', '/v1/jobs/1'],
      ['GET', '/v1/jobs/1/events'],
    ];
    for (const [method, url] of v1Routes) {
      it(`${method} ${url} without a token is 401 with WWW-Authenticate: Bearer, and enqueues nothing`, async () => {
        const res = await web.app.inject({ method: method as 'GET', url, ...(method === 'POST' ? { payload: { name: 'web-a' } } : {}) });
        expect(res.statusCode).to.equal(401);
        expect(res.headers['www-authenticate']).to.match(/^Bearer /);
        expect(res.json()).to.include({ error: 'Unauthorized' });
        expect(await web.queues.vm.getJobCountByTypes('waiting', 'delayed', 'active')).to.equal(0);
      });
    }

    const wrongHeaders: [string, (token: string) => string][] = [
      ['a wrong token', () => 'Bearer not-the-token-at-all'],
      ['the token with one character more', (token) => `Bearer ${token}x`],
      ['the token less its last character', (token) => `Bearer ${token.slice(0, -1)}`],
      ['the token under the Basic scheme', (token) => `Basic ${token}`],
      ['a Bearer with nothing after it', () => 'Bearer '],
    ];
    for (const [what, header] of wrongHeaders) {
      it(`a request with ${what} is 401 and the answer does not echo what was sent`, async () => {
        const sent = header(web.token);
        const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: sent }, payload: { name: 'web-a' } });
        expect(res.statusCode).to.equal(401);
        expect(res.body).to.not.contain(web.token);
        expect(res.body).to.not.contain('not-the-token');
        expect(await web.queues.vm.getJobCountByTypes('waiting')).to.equal(0);
      });
    }

    it('the right token opens /v1, whatever the case of "Bearer"', async () => {
      const res = await web.app.inject({ method: 'GET', url: '/v1/vms', headers: { authorization: `bearer ${web.token}` } });
      expect(res.statusCode).to.equal(200);
    });

    it('GET /v1/openapi.json answers without a token: a client generator fetches it so, and it holds no data', async () => {
      const res = await web.app.inject({ method: 'GET', url: '/v1/openapi.json' });
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.have.property('openapi');
    });

    it('/healthz and /readyz answer without credentials', async () => {
      expect((await web.app.inject({ method: 'GET', url: '/healthz' })).statusCode).to.equal(200);
      expect((await web.app.inject({ method: 'GET', url: '/readyz' })).statusCode).to.be.oneOf([200, 503]);
    });

    it('/metrics needs a bearer token (http.metricsAuth, the default)', async () => {
      expect((await web.app.inject({ method: 'GET', url: '/metrics' })).statusCode).to.equal(401);
      const res = await web.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${web.token}` } });
      expect(res.statusCode).to.equal(200);
    });

    it('Bull Board without credentials is 401 with a Basic challenge', async () => {
      for (const url of ['/admin/queues', '/admin/queues/api/queues']) {
        const res = await web.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).to.equal(401);
        expect(res.headers['www-authenticate'], url).to.match(/^Basic realm=/);
      }
    });

    it('Bull Board with a wrong password, or a wrong user, is 401', async () => {
      for (const header of [basicHeader(web.boardUser, `${web.boardPassword}x`), basicHeader('admin', web.boardPassword), basicHeader(web.boardUser, '')]) {
        const res = await web.app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: { authorization: header } });
        expect(res.statusCode).to.equal(401);
        expect(res.body).to.not.contain(web.boardPassword);
      }
    });

    it('Bull Board with the right user and password shows both queues', async () => {
      const page = await web.app.inject({ method: 'GET', url: '/admin/queues', headers: { authorization: basicHeader(web.boardUser, web.boardPassword) } });
      expect(page.statusCode).to.equal(200);
      expect(page.headers['content-type']).to.match(/text\/html/);
      const api = await web.app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: { authorization: basicHeader(web.boardUser, web.boardPassword) } });
      expect(api.statusCode).to.equal(200);
      const names = api.json<{ queues: { name: string }[] }>().queues.map((q) => q.name);
      expect(names.sort()).to.deep.equal(['system', 'vm']);
    });

    it('the API token does not open Bull Board, nor the board password the API', async () => {
      const board = await web.app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: { authorization: `Bearer ${web.token}` } });
      expect(board.statusCode).to.equal(401);
      const api = await web.app.inject({ method: 'GET', url: '/v1/vms', headers: { authorization: basicHeader(web.boardUser, web.boardPassword) } });
      expect(api.statusCode).to.equal(401);
    });
  });

  describe('with http.metricsAuth false', () => {
    let web: TestWeb;
    before(async () => {
      web = await buildTestWeb({ metricsAuth: false });
    });
    after(() => web.close());

    it('/metrics answers without a token', async () => {
      expect((await web.app.inject({ method: 'GET', url: '/metrics' })).statusCode).to.equal(200);
    });
  });

  describe('with http.authDisabled', () => {
    let web: TestWeb;
    before(async () => {
      web = await buildTestWeb({ authDisabled: true });
    });
    after(() => web.close());

    it('/v1 and Bull Board answer without credentials', async () => {
      expect((await web.app.inject({ method: 'GET', url: '/v1/vms' })).statusCode).to.equal(200);
      expect((await web.app.inject({ method: 'GET', url: '/admin/queues/api/queues' })).statusCode).to.equal(200);
    });
  });
});
