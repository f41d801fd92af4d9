// SPEC 24 (issue 25): every route of ours refuses a query parameter it
// does not take with a 400 naming it, and changes nothing; Bull Board's
// routes keep their own. A name job's body that is not an object is
// refused naming `body`. Fastify inject on the real Redis.
import { expect } from 'chai';
import { basicHeader, buildTestWeb, type TestWeb } from './helpers.js';

interface ErrorAnswer {
  error: string;
  message: string;
  fields?: { field: string; message: string }[];
}

type Method = 'GET' | 'POST' | 'DELETE';

describe('HTTP API query parameters and name job bodies (SPEC 24, issue 25)', () => {
  let web: TestWeb;
  beforeEach(async () => {
    web = await buildTestWeb();
  });
  afterEach(() => web.close());

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const call = (method: Method, url: string, payload?: unknown) => web.app.inject({ method, url, headers: auth(), ...(payload === undefined ? {} : { payload: payload as object }) });

  async function jobCount(): Promise<number> {
    const counts = await web.queues.vm.getJobCounts();
    return Object.values(counts).reduce((a, b) => a + b, 0);
  }

  it('DELETE /v1/vms/:name?UID= (a typo of uid) is a 400 naming UID, and the VM stays desired present with its uid', async () => {
    expect((await call('POST', '/v1/vms', { name: 'typo-1', uid: 'tenant-a' })).statusCode).to.equal(202);
    const res = await call('DELETE', '/v1/vms/typo-1?UID=tenant-b');
    expect(res.statusCode).to.equal(400);
    const body = res.json<ErrorAnswer>();
    expect(body.error).to.equal('ValidationError');
    expect(body.fields).to.deep.equal([{ field: 'UID', message: 'is not a query parameter of DELETE /v1/vms/:name; it takes uid' }]);
    expect(body.message).to.equal('invalid request: UID is not a query parameter of DELETE /v1/vms/:name; it takes uid');
    expect(await web.client.getVm('typo-1')).to.deep.include({ state: 'present', uid: 'tenant-a', generation: 1 });
    expect(await jobCount(), 'only the create').to.equal(1);
    // The parameter it does take still works.
    expect((await call('DELETE', '/v1/vms/typo-1?uid=tenant-a')).statusCode).to.equal(202);
    expect(await web.client.getVm('typo-1')).to.deep.include({ state: 'absent' });
  });

  it('every route of ours refuses an unknown query parameter with a 400 naming it, each one when there are several', async () => {
    const created = (await call('POST', '/v1/vms', { name: 'asked-1', uid: 'tenant-a' })).json<{ jobId: string }>();
    const routes: [Method, string][] = [
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/metrics'],
      ['GET', '/v1/openapi.json'],
      ['GET', '/v1/images'],
      ['GET', '/v1/clusters'],
      ['GET', '/v1/vms'],
      ['POST', '/v1/vms'],
      ['GET', '/v1/vms/asked-1'],
      ['DELETE', '/v1/vms/asked-1'],
      ['POST', '/v1/vms/asked-1/check'],
      ['GET', `/v1/jobs/${created.jobId}`],
      ['GET', `/v1/jobs/${created.jobId}/events`],
    ];
    for (const [method, path] of routes) {
      const res = await call(method, `${path}?verbose=1&Limit=2`, method === 'POST' ? { name: 'asked-2' } : undefined);
      expect(res.statusCode, `${method} ${path}`).to.equal(400);
      const fields = res.json<ErrorAnswer>().fields ?? [];
      expect(fields.map((f) => f.field), `${method} ${path}`).to.deep.equal(['verbose', 'Limit']);
      expect(fields[0]?.message, `${method} ${path}`).to.match(/^is not a query parameter of (GET|POST|DELETE) \/\S+; it takes /);
    }
    expect(await jobCount(), 'no job but the first create').to.equal(1);
    expect(await web.client.getVm('asked-2')).to.equal(undefined);
    expect(await web.client.getVm('asked-1')).to.deep.include({ state: 'present' });
  });

  it('takes every query parameter the OpenAPI document lists for an operation', async () => {
    await call('POST', '/v1/vms', { name: 'listed-0', uid: 'tenant-a' });
    const created = (await call('POST', '/v1/vms', { name: 'listed-1', uid: 'tenant-a' })).json<{ jobId: string }>();
    const cursor = (await call('GET', '/v1/vms?limit=1')).json<{ nextCursor: string }>().nextCursor;
    const doc = (await call('GET', '/v1/openapi.json')).json<{ paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> }>();
    const values: Record<string, string> = { limit: '5', cursor: encodeURIComponent(cursor), state: 'present', node: 'pve1', tenant: 'default', cluster: 'default', uid: 'tenant-b', waitSeconds: '0', lastEventId: '3.completed.1', expiringBefore: encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString()) };
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
        if (query.length === 0) continue;
        const url = `/v1${path.replace('{name}', 'listed-1').replace('{id}', encodeURIComponent(created.jobId))}?${query.map((p) => `${p.name}=${values[p.name] ?? ''}`).join('&')}`;
        const res = await call(method.toUpperCase() as Method, url);
        // 204: the events' lastEventId given is an end, so the stream has nothing to send.
        expect(res.statusCode, `${method} ${url}: ${res.body}`).to.be.oneOf([200, 202, 204]);
        checked++;
      }
    }
    expect(checked, 'operations with query parameters').to.equal(4);
  });

  it('GET /v1/jobs/:id/events takes Last-Event-ID as ?lastEventId too, as an EventSource polyfill resumes; the header wins', async () => {
    const created = (await call('POST', '/v1/vms', { name: 'resumed-1' })).json<{ jobId: string }>();
    const events = `/v1/jobs/${encodeURIComponent(created.jobId)}/events`;
    expect((await call('GET', `${events}?lastEventId=3.completed.1`)).statusCode, 'an end id: nothing follows').to.equal(204);
    const bad = await call('GET', `${events}?lastEventId=seven`);
    expect(bad.statusCode).to.equal(400);
    expect(bad.json<ErrorAnswer>().fields).to.deep.equal([{ field: 'lastEventId', message: 'must be an id this stream sent, such as 7s.active.1' }]);
    const both = await web.app.inject({ method: 'GET', url: `${events}?lastEventId=seven`, headers: { ...auth(), 'last-event-id': '3.completed.1' } });
    expect(both.statusCode).to.equal(204);
  });

  it("leaves Bull Board's own query parameters to it", async () => {
    const res = await web.app.inject({ method: 'GET', url: '/admin/queues/api/queues?activeQueue=vm&page=1&jobsPerPage=10', headers: { authorization: basicHeader(web.boardUser, web.boardPassword) } });
    expect(res.statusCode).to.equal(200);
    expect(res.json<{ queues: { name: string }[] }>().queues.map((q) => q.name)).to.include('vm');
  });

  for (const [what, payload] of [
    ['an array', [1, 2]],
    ['a string', 'check'],
    ['a number', 5],
    ['null', null],
  ] as const) {
    it(`POST /v1/vms/:name/check with ${what} as its body is a 400 naming body, and enqueues nothing`, async () => {
      const res = await web.app.inject({ method: 'POST', url: '/v1/vms/body-1/check', headers: { ...auth(), 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
      expect(res.statusCode).to.equal(400);
      expect(res.json<ErrorAnswer>()).to.deep.include({ error: 'ValidationError', fields: [{ field: 'body', message: 'must be a JSON object' }] });
      expect(await jobCount()).to.equal(0);
    });
  }

  it('POST /v1/vms/:name/check with no body or an empty object enqueues the check', async () => {
    expect((await call('POST', '/v1/vms/body-1/check')).statusCode).to.equal(202);
    expect((await call('POST', '/v1/vms/body-1/check', {})).statusCode).to.equal(202);
    expect(await jobCount()).to.equal(2);
  });
});
