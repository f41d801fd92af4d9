// SPEC 22 "Bad input": a thousand malformed requests to the HTTP API and
// to the producer library. Every one is refused naming the field and the
// reason (SPEC 1), nothing is enqueued, and nothing under the prefix in
// Redis changes (registry, generations, queues), also for names that
// already hold a desired state.
import { expect } from 'chai';
import type { InjectOptions } from 'fastify';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { ValidationError } from '../../src/client.js';
import { bodyLimitBytes } from '../../src/web/body-limit.js';
import { buildTestWeb, type TestWeb } from '../web/helpers.js';
import { malformedCases, type MalformedCase } from './malformed-cases.js';
import { snapshotDiff, snapshotPrefix } from './redis-snapshot.js';

interface RefusalBody {
  error?: string;
  message?: string;
  fields?: { field: string; message: string }[];
}

const EXISTING = ['keep-1', 'gone-1'];

/** The HTTP request a case becomes, or undefined when the API has no way to send it (a delete's fields travel in the path). */
function httpRequest(c: MalformedCase, token: string): InjectOptions | undefined {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (c.verb === 'create') return { method: 'POST', url: '/v1/vms', headers, payload: JSON.stringify(c.input) };
  if (typeof c.input !== 'object' || c.input === null || Array.isArray(c.input)) return undefined;
  const { name, ...rest } = c.input as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return undefined;
  const path = `/v1/vms/${encodeURIComponent(name)}`;
  if (c.verb === 'check') return { method: 'POST', url: `${path}/check`, headers, payload: JSON.stringify(rest) };
  const restKeys = Object.keys(rest);
  if (restKeys.some((k) => k !== 'uid') || (rest.uid !== undefined && typeof rest.uid !== 'string')) return undefined;
  const query = typeof rest.uid === 'string' ? `?uid=${encodeURIComponent(rest.uid)}` : '';
  return { method: 'DELETE', url: `${path}${query}`, headers: { authorization: headers.authorization } };
}

/**
 * A body that is no JSON object is refused as `body` by fastify or
 * `(data)` by the validator; fastify refuses a body with a `__proto__`
 * key as a whole (prototype poisoning), before the validator sees it.
 */
function acceptable(field: string): string[] {
  return field === '(data)' || field === '__proto__' ? [field, 'body'] : [field];
}

function namesEveryField(c: MalformedCase, fields: { field: string; message: string }[] | undefined, message: string | undefined): string | undefined {
  if (fields === undefined || fields.length === 0) return 'no fields in the refusal';
  for (const wanted of c.fields) {
    const hit = fields.find((f) => acceptable(wanted).includes(f.field));
    if (hit === undefined) return `field ${wanted} not named (got ${fields.map((f) => f.field).join(', ')})`;
    if (hit.message.trim().length < 5) return `field ${wanted} has no reason`;
    if (message === undefined || !message.includes(hit.field)) return `message does not name ${hit.field}`;
  }
  return undefined;
}

describe('bad input is refused and changes nothing (SPEC 22, SPEC 1)', function () {
  this.timeout(120_000);
  let web: TestWeb;
  const cases = malformedCases(EXISTING);

  before(async () => {
    web = await buildTestWeb();
    // State to protect: a present name with a job, a deleted name.
    await web.client.createVm({ name: 'keep-1', uid: 'owner-keep' });
    await web.client.createVm({ name: 'gone-1', uid: 'owner-gone' });
    await web.client.deleteVm({ name: 'gone-1' });
  });
  after(() => web.close());

  it(`has at least a thousand distinct malformed requests`, () => {
    expect(new Set(cases.map((c) => c.label)).size).to.be.at.least(1000);
  });

  it('the producer library refuses every one with a ValidationError naming each bad field, and Redis is unchanged', async () => {
    const before = await snapshotPrefix(web.redis, web.prefix);
    const countsBefore = [await web.queues.vm.getJobCounts(), await web.queues.system.getJobCounts()];
    const problems: string[] = [];
    for (const c of cases) {
      const call = c.verb === 'create' ? web.client.createVm(c.input) : c.verb === 'delete' ? web.client.deleteVm(c.input) : web.client.checkVm(c.input);
      const outcome = await call.then(
        () => 'accepted',
        (err: unknown) => (err instanceof ValidationError ? namesEveryField(c, err.fields, err.message) : `threw ${String(err)}`),
      );
      if (outcome !== undefined) problems.push(`${c.label}: ${outcome}`);
    }
    expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
    expect([await web.queues.vm.getJobCounts(), await web.queues.system.getJobCounts()]).to.deep.equal(countsBefore);
    expect(snapshotDiff(before, await snapshotPrefix(web.redis, web.prefix))).to.deep.equal([]);
  });

  it('the HTTP API answers 400 to every one it can carry, naming each bad field, and Redis is unchanged', async () => {
    const before = await snapshotPrefix(web.redis, web.prefix);
    const countsBefore = [await web.queues.vm.getJobCounts(), await web.queues.system.getJobCounts()];
    const problems: string[] = [];
    let sent = 0;
    for (const c of cases) {
      const request = httpRequest(c, web.token);
      if (request === undefined) continue;
      sent += 1;
      const res = await web.app.inject(request);
      if (res.statusCode !== 400) {
        problems.push(`${c.label}: status ${res.statusCode} ${res.body.slice(0, 200)}`);
        continue;
      }
      const body = res.json<RefusalBody>();
      const outcome = body.error === 'ValidationError' ? namesEveryField(c, body.fields, body.message) : `error ${body.error}`;
      if (outcome !== undefined) problems.push(`${c.label}: ${outcome}`);
    }
    expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
    expect(sent, 'requests sent over HTTP').to.be.at.least(900);
    expect([await web.queues.vm.getJobCounts(), await web.queues.system.getJobCounts()]).to.deep.equal(countsBefore);
    expect(snapshotDiff(before, await snapshotPrefix(web.redis, web.prefix))).to.deep.equal([]);
  });

  it('bodies that are no JSON object at all are refused as the body (SPEC 1)', async () => {
    const before = await snapshotPrefix(web.redis, web.prefix);
    const limit = bodyLimitBytes(limitsFromConfig(web.config));
    const raw = ['{', '{"name": "keep-1",}', 'name=keep-1', '', '\u0000', '{"name":"keep-1","name":"x_y"}', `{"name":"${'a'.repeat(limit)}"}`];
    for (const payload of raw) {
      const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}`, 'content-type': 'application/json' }, payload });
      // Too large to parse is 413 (HTTP's answer), still naming the body.
      expect(res.statusCode, JSON.stringify(payload.slice(0, 40))).to.equal(payload.length > limit ? 413 : 400);
      const body = res.json<RefusalBody>();
      expect(body.fields?.[0]?.field, payload.slice(0, 40)).to.be.oneOf(['body', 'name', '(data)']);
    }
    expect(snapshotDiff(before, await snapshotPrefix(web.redis, web.prefix))).to.deep.equal([]);
  });
});
