// SPEC 6 (/v1/vms), SPEC 1 (every failing field, nothing enqueued) and
// SPEC 2 (idempotent create, 409 on another uid), through fastify inject
// on the real Redis and the real producer client.
import { expect } from 'chai';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { bodyLimitBytes } from '../../src/web/body-limit.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

interface ErrorAnswer {
  error: string;
  message: string;
  fields?: { field: string; message: string }[];
}

describe('HTTP API /v1/vms (SPEC 6)', () => {
  let web: TestWeb;
  beforeEach(async () => {
    web = await buildTestWeb();
  });
  afterEach(() => web.close());

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const post = (url: string, payload?: unknown) => web.app.inject({ method: 'POST', url, headers: auth(), ...(payload === undefined ? {} : { payload: payload as object }) });

  async function nothingEnqueued(): Promise<void> {
    const counts = await web.queues.vm.getJobCounts();
    expect(Object.values(counts).reduce((a, b) => a + b, 0), 'jobs in the vm queue').to.equal(0);
    expect((await web.client.listVms()).vms, 'registry entries').to.deep.equal([]);
  }

  it('POST /v1/vms answers 202 with the job id and Location, and the job is in the queue with defaults filled', async () => {
    const res = await post('/v1/vms', { name: 'web-one', uid: 'owner-1', cores: 1 });
    expect(res.statusCode).to.equal(202);
    const body = res.json<{ jobId: string; name: string; generation: number; existing: boolean }>();
    expect(body).to.include({ name: 'web-one', existing: false });
    expect(body.generation).to.equal(1);
    expect(res.headers.location).to.equal(`/v1/jobs/${body.jobId}`);
    const job = await web.queues.vm.getJob(body.jobId);
    expect(job?.name).to.equal('create');
    expect(job?.data).to.include({ name: 'web-one', uid: 'owner-1', cores: 1, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, generation: 1 });
  });

  it('a repeated create with the same uid is idempotent: same job, 200 with existing true (SPEC 2)', async () => {
    const first = (await post('/v1/vms', { name: 'web-idem', uid: 'owner-1' })).json<{ jobId: string }>();
    const again = await post('/v1/vms', { name: 'web-idem', uid: 'owner-1' });
    expect(again.statusCode).to.equal(200);
    expect(again.json()).to.include({ jobId: first.jobId, existing: true });
    expect(await web.queues.vm.getJobCountByTypes('waiting')).to.equal(1);
  });

  it('a create of a present name with another uid is 409 and adds no job (SPEC 2)', async () => {
    await post('/v1/vms', { name: 'web-taken', uid: 'owner-1' });
    const res = await post('/v1/vms', { name: 'web-taken', uid: 'owner-2' });
    expect(res.statusCode).to.equal(409);
    expect(res.json<ErrorAnswer>().error).to.equal('Conflict');
    expect(res.json<ErrorAnswer>().message).to.contain('web-taken');
    expect(await web.queues.vm.getJobCountByTypes('waiting')).to.equal(1);
  });

  it('a create with no uid on a present name is the same request: 200, the same job and uid, one job (SPEC 2)', async () => {
    const first = await post('/v1/vms', { name: 'web-nouid', cores: 2 });
    expect(first.statusCode).to.equal(202);
    const again = await post('/v1/vms', { name: 'web-nouid', cores: 2 });
    expect(again.statusCode).to.equal(200);
    const [a, b] = [first.json<{ jobId: string; uid: string }>(), again.json<{ jobId: string; uid: string; existing: boolean }>()];
    expect(b).to.include({ jobId: a.jobId, uid: a.uid, existing: true });
    expect((await web.client.getVm('web-nouid'))?.uid).to.equal(a.uid);
    expect(await web.queues.vm.getJobCountByTypes('waiting')).to.equal(1);
  });

  it('a create whose spec differs from the present one in a field no VM takes in place is 409 naming every such field, whatever the uid, and keeps the present spec (SPEC 2)', async () => {
    await post('/v1/vms', { name: 'web-spec', uid: 'owner-1', cores: 2, userData: '#cloud-config\n' });
    const asks: [string, Record<string, unknown>, string[]][] = [
      ['the same uid', { uid: 'owner-1', cores: 4, diskGiB: 1, userData: '#cloud-config\n' }, ['diskGiB']],
      ['no uid', { cores: 2, memoryMiB: 4096, userData: '#cloud-config\npackages: [htop]\n' }, ['userData']],
      ['another uid', { uid: 'owner-2', cores: 2, vlanTag: 7, bridge: 'vmbr1' }, ['userData', 'vlanTag', 'bridge']],
    ];
    for (const [what, body, fields] of asks) {
      const res = await post('/v1/vms', { name: 'web-spec', ...body });
      expect(res.statusCode, what).to.equal(409);
      const answer = res.json<ErrorAnswer>();
      expect(answer.error, what).to.equal('Conflict');
      expect(answer.fields?.map((f) => f.field), what).to.deep.equal(fields);
      for (const field of fields) expect(answer.message, what).to.contain(field);
      expect(answer.message, what).not.to.contain('cloud-config');
    }
    expect(await web.queues.vm.getJobCountByTypes('waiting')).to.equal(1);
    const kept = await web.client.getVm('web-spec');
    expect(kept).to.include({ uid: 'owner-1', generation: 1 });
    expect(kept?.spec).to.include({ cores: 2 });
  });

  // Each bad body and the exact set of fields the answer must name.
  const badBodies: [string, unknown, string[]][] = [
    ['empty object', {}, ['name']],
    ['name starting with -', { name: '-web' }, ['name']],
    ['name with uppercase and _', { name: 'Web_1' }, ['name']],
    ['name of 64 characters', { name: 'a'.repeat(64) }, ['name']],
    ['name not a string', { name: 42 }, ['name']],
    ['zero cores', { name: 'ok', cores: 0 }, ['cores']],
    ['cores above the limit', { name: 'ok', cores: 33 }, ['cores']],
    ['fractional cores and memory as text', { name: 'ok', cores: 1.5, memoryMiB: 'lots' }, ['cores', 'memoryMiB']],
    ['disk above the limit', { name: 'ok', diskGiB: 2049 }, ['diskGiB']],
    ['VLAN 0', { name: 'ok', vlanTag: 0 }, ['vlanTag']],
    ['VLAN 4095', { name: 'ok', vlanTag: 4095 }, ['vlanTag']],
    ['a node not configured', { name: 'ok', node: 'pve9' }, ['node']],
    ['a uid with a space', { name: 'ok', uid: 'has space' }, ['uid']],
    ['a uid of 65 characters', { name: 'ok', uid: 'u'.repeat(65) }, ['uid']],
    ['userData over 64 KiB', { name: 'ok', userData: 'x'.repeat(64 * 1024 + 1) }, ['userData']],
    ['userData with a lone surrogate', { name: 'ok', userData: '#cloud-config\n\uD800' }, ['userData']],
    ['networkConfig not a string', { name: 'ok', networkConfig: { version: 2 } }, ['networkConfig']],
    ['waitForAddress as text', { name: 'ok', waitForAddress: 'yes' }, ['waitForAddress']],
    ['a bridge with a shell character', { name: 'ok', bridge: 'vmbr0;x' }, ['bridge']],
    ['an unknown field', { name: 'ok', colour: 'red' }, ['colour']],
    ['a generation (the producer sets it)', { name: 'ok', generation: 7 }, ['generation']],
    ['a step (the worker writes it)', { name: 'ok', step: 'address' }, ['step']],
    ['five bad fields at once', { name: '-x', cores: 0, vlanTag: 9999, bridge: '1bad', extra: 1 }, ['name', 'cores', 'vlanTag', 'bridge', 'extra']],
    ['an array', [{ name: 'ok' }], ['(data)']],
  ];
  for (const [what, body, fields] of badBodies) {
    it(`POST /v1/vms with ${what} is 400 naming ${fields.join(', ')}, and enqueues nothing (SPEC 1)`, async () => {
      const res = await post('/v1/vms', body);
      expect(res.statusCode).to.equal(400);
      const answer = res.json<ErrorAnswer>();
      expect(answer.error).to.equal('ValidationError');
      expect(answer.fields?.map((f) => f.field).sort()).to.deep.equal([...fields].sort());
      for (const field of answer.fields ?? []) {
        expect(field.message, field.field).to.be.a('string').and.not.equal('');
        expect(answer.message).to.contain(field.field);
      }
      await nothingEnqueued();
    });
  }

  it('a body that is not JSON is 400 on the field "body", and enqueues nothing', async () => {
    const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { ...auth(), 'content-type': 'application/json' }, payload: '{"name":' });
    expect(res.statusCode).to.equal(400);
    expect(res.json<ErrorAnswer>()).to.deep.include({ error: 'ValidationError', fields: [{ field: 'body', message: 'must be a JSON object' }] });
    await nothingEnqueued();
  });

  it('a body over the size limit is 413 and one that is not JSON is 415, both as JSON, and enqueue nothing', async () => {
    const huge = await post('/v1/vms', { name: 'ok', userData: 'x'.repeat(bodyLimitBytes(limitsFromConfig(web.config))) });
    expect(huge.statusCode).to.equal(413);
    expect(huge.json<ErrorAnswer>().error).to.equal('PayloadTooLarge');
    expect(huge.json<ErrorAnswer>().fields?.map((f) => f.field)).to.deep.equal(['body']);
    const form = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' }, payload: 'name=ok' });
    expect(form.statusCode).to.equal(415);
    expect(form.json<ErrorAnswer>().error).to.equal('UnsupportedMediaType');
    await nothingEnqueued();
  });

  it('GET /v1/vms lists the desired state of every name', async () => {
    await post('/v1/vms', { name: 'web-a', uid: 'u-a' });
    await post('/v1/vms', { name: 'web-b', uid: 'u-b' });
    const res = await web.app.inject({ method: 'GET', url: '/v1/vms', headers: auth() });
    expect(res.statusCode).to.equal(200);
    const { vms } = res.json<{ vms: { name: string; state: string; uid: string }[] }>();
    expect(vms.map((v) => [v.name, v.state, v.uid]).sort()).to.deep.equal([
      ['web-a', 'present', 'u-a'],
      ['web-b', 'present', 'u-b'],
    ]);
  });

  it('GET /v1/vms/:name answers the desired state with its job; an unknown name is 404', async () => {
    const { jobId } = (await post('/v1/vms', { name: 'web-get', uid: 'u-1' })).json<{ jobId: string }>();
    const res = await web.app.inject({ method: 'GET', url: '/v1/vms/web-get', headers: auth() });
    expect(res.statusCode).to.equal(200);
    const body = res.json<{ name: string; state: string; generation: number; jobId: string; job: { id: string; job: string; state: string } }>();
    expect(body).to.include({ name: 'web-get', state: 'present', generation: 1, jobId });
    expect(body.job).to.include({ id: jobId, job: 'create', state: 'waiting' });
    const missing = await web.app.inject({ method: 'GET', url: '/v1/vms/web-nobody', headers: auth() });
    expect(missing.statusCode).to.equal(404);
    expect(missing.json<ErrorAnswer>().error).to.equal('NotFound');
  });

  it('DELETE /v1/vms/:name is 202 and records the name absent with the next generation', async () => {
    await post('/v1/vms', { name: 'web-del', uid: 'u-1' });
    const res = await web.app.inject({ method: 'DELETE', url: '/v1/vms/web-del?uid=u-1', headers: auth() });
    expect(res.statusCode).to.equal(202);
    const body = res.json<{ jobId: string; generation: number }>();
    expect(body.generation).to.equal(2);
    const job = await web.queues.vm.getJob(body.jobId);
    expect(job?.name).to.equal('delete');
    expect(job?.data).to.include({ name: 'web-del', uid: 'u-1', generation: 2 });
    expect((await web.client.getVm('web-del'))?.state).to.equal('absent');
  });

  it('DELETE with a bad name or uid is 400 naming both', async () => {
    const res = await web.app.inject({ method: 'DELETE', url: '/v1/vms/Bad_Name?uid=no%20spaces', headers: auth() });
    expect(res.statusCode).to.equal(400);
    expect(res.json<ErrorAnswer>().fields?.map((f) => f.field).sort()).to.deep.equal(['name', 'uid']);
    await nothingEnqueued();
  });

  it('POST /v1/vms/:name/check is 202 with a check job; a bad name is 400', async () => {
    const res = await post('/v1/vms/web-chk/check');
    expect(res.statusCode).to.equal(202);
    const job = await web.queues.vm.getJob(res.json<{ jobId: string }>().jobId);
    expect(job?.name).to.equal('check');
    expect(job?.data).to.deep.equal({ name: 'web-chk' });
    const bad = await post('/v1/vms/-chk/check');
    expect(bad.statusCode).to.equal(400);
    expect(bad.json<ErrorAnswer>().fields?.map((f) => f.field)).to.deep.equal(['name']);
  });

  it('a check body cannot add fields', async () => {
    const res = await post('/v1/vms/web-chk/check', { cores: 4 });
    expect(res.statusCode).to.equal(400);
    expect(res.json<ErrorAnswer>().fields?.map((f) => f.field)).to.deep.equal(['cores']);
  });
});
