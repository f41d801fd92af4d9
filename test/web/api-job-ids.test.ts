// SPEC 24, 6 (issue 25): a job id of no shape the service gives names no
// job. GET /v1/jobs/:id and its events answer 404 for it without asking
// Redis, where such an id may be one of BullMQ's own keys (`id`, `events`,
// `metrics:completed:data`: a 500 and a stack trace before); every id the
// service does give, a scheduler's included, is still looked up.
import { expect } from 'chai';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { jobDoor } from '../../src/queue/enqueue.js';
import type { VmService } from '../../src/web/deps.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

interface ErrorAnswer {
  error: string;
  message: string;
}

// Each the suffix of a key BullMQ keeps beside a queue's jobs.
const KEY_SUFFIXES = ['id', 'events', 'meta', 'wait', 'metrics:completed:data', 'metrics:failed', 'repeat:reconcile', 'create-a-1:logs'];

describe('HTTP API job ids of no shape of ours (SPEC 24, issue 25)', () => {
  let web: TestWeb;
  let reads: string[];
  beforeEach(async () => {
    reads = [];
    const counted = (client: VmService): VmService => ({
      ...client,
      getJob: (id) => {
        reads.push(id);
        return client.getJob(id);
      },
    });
    web = await buildTestWeb({}, { service: counted });
  });
  afterEach(() => web.close());

  const get = (url: string) => web.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${web.token}` } });

  for (const route of ['/v1/jobs/:id', '/v1/jobs/:id?waitSeconds=5', '/v1/jobs/:id/events']) {
    it(`GET ${route} is a 404 NotFound for a BullMQ key suffix, and asks the service nothing`, async () => {
      for (const id of KEY_SUFFIXES) {
        const res = await get(route.replace(':id', encodeURIComponent(id)));
        expect(res.statusCode, id).to.equal(404);
        expect(res.json<ErrorAnswer>(), id).to.deep.equal({ error: 'NotFound', message: `no job ${id}` });
      }
      expect(reads).to.deep.equal([]);
    });
  }

  it("still finds a caller's job and a job its scheduler added (BullMQ's repeat:<job>:<millis>)", async () => {
    const created = (await web.app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${web.token}` }, payload: { name: 'shaped-1' } })).json<{ jobId: string }>();
    await jobDoor(web.queues, limitsFromConfig(web.config)).schedule('health', 3_600_000, {});
    const [scheduled] = await web.queues.system.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(scheduled?.id).to.match(/^repeat:health:\d+$/);
    for (const id of [created.jobId, scheduled?.id ?? '']) {
      const res = await get(`/v1/jobs/${encodeURIComponent(id)}`);
      expect(res.statusCode, id).to.equal(200);
      expect(res.json<{ id: string }>().id).to.equal(id);
    }
    expect(reads).to.have.length(2);
  });
});
