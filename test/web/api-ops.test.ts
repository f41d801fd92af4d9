// SPEC 6 and 9: /healthz, /readyz from the real heartbeat and health
// store, /metrics (ours plus BullMQ's queue counts), the OpenAPI document
// built from the job schemas, and JSON 404s.
import { expect } from 'chai';
import { JOB_NAMES, jobJsonSchema, limitsFromConfig } from '../../src/job-table/schema.js';
import { writeLastHealth } from '../../src/queue/health-store.js';
import { startHeartbeat } from '../../src/queue/heartbeat.js';
import { buildTestWeb, type TestWeb } from './helpers.js';
import { eventually } from '../support/redis.js';

interface Readiness {
  ready: boolean;
  checks: Record<'redis' | 'workers' | 'health', { ok: boolean; error?: string }>;
}

describe('HTTP operations routes (SPEC 6, 9)', () => {
  let web: TestWeb;
  beforeEach(async () => {
    web = await buildTestWeb();
  });
  afterEach(() => web.close());

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });

  it('/healthz says the process is up', async () => {
    const res = await web.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ status: 'ok' });
  });

  it('/readyz is 503 with no worker and no health result, and says why', async () => {
    const res = await web.app.inject({ method: 'GET', url: '/readyz', headers: auth() });
    expect(res.statusCode).to.equal(503);
    const body = res.json<Readiness>();
    expect(body.ready).to.equal(false);
    expect(body.checks.redis.ok).to.equal(true);
    expect(body.checks.workers.error).to.match(/no worker/);
    expect(body.checks.health.error).to.match(/no health result/);
  });

  it('/readyz is 200 once a worker beats and the last health job found a node ok', async () => {
    const beat = startHeartbeat(web.redis, web.prefix, 'worker-test', 2);
    try {
      await writeLastHealth(web.redis, web.prefix, [
        { node: 'pve1', ok: true, reasons: [] },
        { node: 'pve2', ok: false, reasons: [{ reason: 'NodeOffline', detail: 'node pve2 is offline' }] },
      ]);
      // Until the heartbeat's first beat is in, however long a loaded machine takes.
      const res = await eventually(async () => {
        const answer = await web.app.inject({ method: 'GET', url: '/readyz', headers: auth() });
        return answer.statusCode === 200 ? answer : undefined;
      }, 20_000);
      expect(res.statusCode).to.equal(200);
      expect(res.json<Readiness>().ready).to.equal(true);
    } finally {
      await beat.stop();
    }
    const after = await web.app.inject({ method: 'GET', url: '/readyz', headers: auth() });
    expect(after.statusCode, 'the stopped worker is gone').to.equal(503);
  });

  it('/readyz is 503 when the last health job found every node failing', async () => {
    const beat = startHeartbeat(web.redis, web.prefix, 'worker-test', 2);
    try {
      await writeLastHealth(web.redis, web.prefix, [{ node: 'pve1', ok: false, reasons: [{ reason: 'Unreachable', detail: 'connect ECONNREFUSED' }] }]);
      const res = await web.app.inject({ method: 'GET', url: '/readyz', headers: auth() });
      expect(res.statusCode).to.equal(503);
      expect(res.json<Readiness>().checks.health.error).to.match(/no node fit/);
    } finally {
      await beat.stop();
    }
  });

  it('/metrics has our job metrics and BullMQ queue counts, each family declared once', async () => {
    web.metrics.jobFinished('create', 'completed', 1.5);
    await web.app.inject({ method: 'POST', url: '/v1/vms', headers: auth(), payload: { name: 'web-m' } });
    const res = await web.app.inject({ method: 'GET', url: '/metrics', headers: auth() });
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/plain/);
    expect(res.body).to.contain('pvep_jobs_total{job_name="create",outcome="completed"} 1');
    expect(res.body).to.contain('pvep_job_duration_seconds_count{job_name="create"} 1');
    expect(res.body).to.contain('bullmq_jobs{queue="vm", state="waiting"} 1');
    expect(res.body).to.contain('bullmq_jobs{queue="system", state="waiting"} 0');
    const declarations = res.body.split('\n').filter((line) => line.startsWith('# TYPE '));
    expect(new Set(declarations).size).to.equal(declarations.length);
  });

  it('/v1/openapi.json documents every /v1 route, with the create body from the job schema', async () => {
    const res = await web.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: auth() });
    expect(res.statusCode).to.equal(200);
    const doc = res.json<{ openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>> }>();
    expect(doc.openapi).to.match(/^3\.1/);
    expect(Object.keys(doc.paths).sort()).to.deep.equal(['/clusters', '/images', '/jobs/{id}', '/jobs/{id}/events', '/pools', '/tenants', '/tenants/me', '/vms', '/vms/{name}', '/vms/{name}/check', '/vms/{name}/lease']);
    expect(Object.keys(doc.paths['/vms'] ?? {}).sort()).to.deep.equal(['get', 'post']);
    expect(Object.keys(doc.paths['/vms/{name}'] ?? {}).sort()).to.deep.equal(['delete', 'get', 'parameters']);
    const body = doc.paths['/vms']?.post?.requestBody?.content['application/json']?.schema;
    expect(body).to.deep.equal(jobJsonSchema('create', limitsFromConfig(web.config)));
  });

  it('/v1/openapi.json names the jobs of the job table, and a job of one name has its route (SPEC 1, 6)', async () => {
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: auth() })).json<{
      paths: Record<string, { post?: { summary?: string } }>;
      components: { schemas: { Job: { oneOf: unknown[]; discriminator: { propertyName: string; mapping: Record<string, string> } } } };
    }>();
    // One Job variant per job, told apart by `job`.
    expect(doc.components.schemas.Job.discriminator.propertyName).to.equal('job');
    expect(Object.keys(doc.components.schemas.Job.discriminator.mapping)).to.deep.equal([...JOB_NAMES]);
    expect(doc.components.schemas.Job.oneOf).to.have.length(JOB_NAMES.length);
    expect(doc.paths['/vms/{name}/check']?.post?.summary).to.equal("Enqueue a check of the VM's state");
  });

  it('/v1/openapi.json gives the relative /v1 as its server when http.publicUrl is unset', async () => {
    const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ servers: { url: string }[] }>();
    expect(doc.servers).to.deep.equal([{ url: '/v1' }]);
  });

  for (const publicUrl of ['https://provisioner.example.com', 'https://provisioner.example.com/pvep/']) {
    it(`/v1/openapi.json gives http.publicUrl ${publicUrl} followed by /v1 as its server, so a generated client needs no base URL`, async () => {
      await web.close();
      web = await buildTestWeb({ publicUrl });
      const doc = (await web.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json<{ servers: { url: string }[] }>();
      expect(doc.servers).to.deep.equal([{ url: `${publicUrl.replace(/\/$/, '')}/v1` }]);
    });
  }

  it('unknown routes answer a JSON 404', async () => {
    for (const url of ['/nope', '/v2/vms', '/v1/vms/a/b/c']) {
      const res = await web.app.inject({ method: 'GET', url, headers: auth() });
      expect(res.statusCode, url).to.equal(404);
      expect(res.json(), url).to.include({ error: 'NotFound' });
    }
  });
});
