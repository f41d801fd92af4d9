// SPEC 24 inside the web app: while its Redis connection is down every
// route that needs Redis answers 503 with Retry-After and the reason in
// words, and writes nothing; the routes that need no Redis still answer.
// The probe is the app's real input here (the e2e outage test drives the
// real connection).
import { expect } from 'chai';
import { basicHeader, buildTestWeb, type TestWeb } from './helpers.js';
import type { RedisDown } from '../../src/web/redis-down.js';
import { ReplicaAcksError } from '../../src/queue/replica-acks.js';

const DOWN: RedisDown = {
  message: 'Redis at 127.0.0.1:6399 is not reachable (connection refused): check that redis-server runs there and that redis.url (REDIS_URL) names it',
  retryAfterSeconds: 4,
};

describe('web app while Redis is down (SPEC 24)', () => {
  let web: TestWeb;
  let down: RedisDown | undefined;

  before(async () => {
    web = await buildTestWeb({}, { redisDown: () => down });
  });
  after(() => web.close());
  beforeEach(() => {
    down = DOWN;
  });

  const bearer = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });

  const needRedis: [string, string, object?][] = [
    ['POST', '/v1/vms', { name: 'while-down' }],
    ['GET', '/v1/vms'],
    ['GET', '/v1/vms/while-down'],
    ['DELETE', '/v1/vms/while-down'],
    ['POST', '/v1/vms/while-down/check'],
    ['GET', '/v1/jobs/some-job'],
  ];
  for (const [method, url, payload] of needRedis) {
    it(`${method} ${url} answers 503 with Retry-After and the reason`, async () => {
      const res = await web.app.inject({ method: method as 'GET', url, headers: bearer(), ...(payload ? { payload } : {}) });
      expect(res.statusCode).to.equal(503);
      expect(res.headers['retry-after']).to.equal('4');
      const body = res.json<{ error: string; message: string }>();
      expect(body.error).to.equal('RedisUnavailable');
      expect(body.message).to.equal(`${DOWN.message}. Nothing was accepted; try again in 4 s.`);
    });
  }

  it('records nothing for a create refused with 503', async () => {
    await web.app.inject({ method: 'POST', url: '/v1/vms', headers: bearer(), payload: { name: 'never-recorded' } });
    down = undefined;
    expect(await web.client.getVm('never-recorded')).to.equal(undefined);
    expect((await web.app.inject({ method: 'GET', url: '/v1/vms/never-recorded', headers: bearer() })).statusCode).to.equal(404);
  });

  it('a write that Redis left half-way says it may have been recorded, not that nothing was accepted', async () => {
    down = undefined;
    const createVm = web.client.createVm.bind(web.client);
    // Redis went away after the desired state was written, before the job was added.
    web.client.createVm = async (input) => {
      await createVm(input);
      down = DOWN;
      throw new Error('Connection is closed.');
    };
    try {
      const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: bearer(), payload: { name: 'half-way' } });
      expect(res.statusCode).to.equal(503);
      const body = res.json<{ message: string; mayBeRecorded?: boolean }>();
      expect(body.mayBeRecorded).to.equal(true);
      expect(body.message).to.not.contain('Nothing was accepted');
      expect(body.message).to.contain('may have been recorded');
      down = undefined;
      expect(await web.client.getVm('half-way'), 'the premise: the intent was recorded').to.not.equal(undefined);
    } finally {
      web.client.createVm = createVm;
    }
  });

  it('an accept too few replicas confirmed is a 503 with Retry-After that names what happened and says it may be recorded (issue 16, SPEC 25)', async () => {
    down = undefined;
    const createVm = web.client.createVm.bind(web.client);
    const said = 'Redis accepted the write but only 0 of 1 replicas confirmed it within 1000 ms: check that the master\'s replicas run and keep up';
    web.client.createVm = async (input) => {
      await createVm(input);
      throw new ReplicaAcksError(said);
    };
    try {
      const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: bearer(), payload: { name: 'unconfirmed' } });
      expect(res.statusCode).to.equal(503);
      expect(res.headers['retry-after']).to.equal('1');
      const body = res.json<{ error: string; message: string; mayBeRecorded?: boolean }>();
      expect(body.error).to.equal('RedisUnavailable');
      expect(body.message).to.contain(said);
      expect(body.mayBeRecorded).to.equal(true);
    } finally {
      web.client.createVm = createVm;
    }
  });

  it('a Cluster command out of redirections during a failover is a 503 with Retry-After that may be recorded, not a 500 (issue 16, SPEC 24, 25)', async () => {
    down = undefined;
    const createVm = web.client.createVm.bind(web.client);
    // What ioredis's Cluster client throws when a slot's master is replaced under a write.
    web.client.createVm = () => Promise.reject(new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'));
    try {
      const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: bearer(), payload: { name: 'between-masters' } });
      expect(res.statusCode).to.equal(503);
      expect(res.headers['retry-after']).to.equal('1');
      const body = res.json<{ error: string; message: string; mayBeRecorded?: boolean }>();
      expect(body.error).to.equal('RedisUnavailable');
      expect(body.message).to.contain('a cluster slot is between masters');
      expect(body.mayBeRecorded).to.equal(true);
    } finally {
      web.client.createVm = createVm;
    }
  });

  it('still asks for the token first: no token is 401, not 503', async () => {
    expect((await web.app.inject({ method: 'GET', url: '/v1/vms' })).statusCode).to.equal(401);
  });

  it('/readyz answers 503 with the reason in words and Retry-After; /healthz, /metrics and the OpenAPI document still answer', async () => {
    const ready = await web.app.inject({ method: 'GET', url: '/readyz', headers: bearer() });
    expect(ready.statusCode).to.equal(503);
    expect(ready.headers['retry-after']).to.equal('4');
    const report = ready.json<{ reason: string; checks: { workers: { error: string } } }>();
    expect(report.reason).to.equal(DOWN.message);
    expect(report.checks.workers.error).to.equal('not checked: Redis is not reachable');
    expect((await web.app.inject({ method: 'GET', url: '/healthz' })).statusCode).to.equal(200);
    const metrics = await web.app.inject({ method: 'GET', url: '/metrics', headers: bearer() });
    expect(metrics.statusCode).to.equal(200);
    expect((await web.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: bearer() })).statusCode).to.equal(200);
  });

  it('/readyz without a token says Redis is not reachable without naming its address (issue 25)', async () => {
    const ready = await web.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).to.equal(503);
    expect(ready.headers['retry-after']).to.equal('4');
    expect(ready.json<{ reason: string }>().reason).to.equal('Redis is not reachable from the web process');
    expect(ready.body).to.not.contain('127.0.0.1');
  });

  it("Bull Board's API answers 503, its page still loads", async () => {
    const authorization = basicHeader(web.boardUser, web.boardPassword);
    const api = await web.app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: { authorization } });
    expect(api.statusCode).to.equal(503);
    expect(api.headers['retry-after']).to.equal('4');
    expect((await web.app.inject({ method: 'GET', url: '/admin/queues', headers: { authorization } })).statusCode).to.equal(200);
  });

  it('answers as before once Redis is back', async () => {
    down = undefined;
    const res = await web.app.inject({ method: 'GET', url: '/v1/vms', headers: bearer() });
    expect(res.statusCode).to.equal(200);
  });
});
