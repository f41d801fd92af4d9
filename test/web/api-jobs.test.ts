// SPEC 6: GET /v1/jobs/:id shows state, progress, log lines and result
// or failure reason; ?waitSeconds waits (bounded) for the end. Jobs here
// are finished by a bare BullMQ worker standing in for ours: the thing
// under test is the HTTP view, not the provider.
import { expect } from 'chai';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { VM_QUEUE } from '../../src/queue/queues.js';
import { MAX_WAIT_SECONDS } from '../../src/web/routes/jobs.js';
import { buildTestWeb, type TestWeb } from './helpers.js';
import { REDIS_URL } from '../support/redis.js';

interface JobAnswer {
  id: string;
  job: string;
  state: string;
  progress: number;
  step?: string;
  data: Record<string, unknown>;
  result?: { address?: string };
  failedReason?: string;
  logs: string[];
}

describe('HTTP API /v1/jobs (SPEC 6)', () => {
  let web: TestWeb;
  let worker: Worker | undefined;
  beforeEach(async () => {
    web = await buildTestWeb();
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await web.close();
  });

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const getJob = (url: string) => web.app.inject({ method: 'GET', url, headers: auth() });

  function standInWorker(processor: (job: Job) => Promise<unknown>): Worker {
    return new Worker(VM_QUEUE, processor, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: web.prefix });
  }

  async function enqueue(name: string): Promise<string> {
    const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: auth(), payload: { name } });
    return res.json<{ jobId: string }>().jobId;
  }

  it('shows a waiting job at once', async () => {
    const id = await enqueue('web-wait');
    const res = await getJob(`/v1/jobs/${id}`);
    expect(res.statusCode).to.equal(200);
    expect(res.json<JobAnswer>()).to.include({ id, job: 'create', state: 'waiting' });
  });

  it('with waitSeconds answers when the job completes, with its progress, log lines and address', async () => {
    const id = await enqueue('web-done');
    worker = standInWorker(async (job) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await job.log('cloned to VMID 100123');
      // As the worker records a step: the step in the data, the progress a number.
      await job.updateData({ ...(job.data as object), step: 'address' });
      await job.updateProgress(100);
      return { address: '10.1.2.3' };
    });
    const res = await getJob(`/v1/jobs/${id}?waitSeconds=20`);
    expect(res.statusCode).to.equal(200);
    const body = res.json<JobAnswer>();
    expect(body.state).to.equal('completed');
    expect(body.result?.address).to.equal('10.1.2.3');
    expect(body.progress).to.equal(100);
    expect(body.step).to.equal('address');
    // The step is shown once, apart from the data the caller sent.
    expect(body.data).to.not.have.property('step');
    expect(body.logs).to.deep.equal(['cloned to VMID 100123']);
  });

  it('a job an older release ran, its step in progress as {step}, shows that step and progress 0', async () => {
    const id = await enqueue('web-old');
    worker = standInWorker(async (job) => {
      await job.updateProgress({ step: 'running' });
      return { address: '10.1.2.4' };
    });
    const body = (await getJob(`/v1/jobs/${id}?waitSeconds=20`)).json<JobAnswer>();
    expect(body.state).to.equal('completed');
    expect(body.step).to.equal('running');
    expect(body.progress).to.equal(0);
  });

  it('shows a failed job with its reason', async () => {
    const id = await enqueue('web-fail');
    // Unrecoverable, as our worker ends a Permanent error (SPEC 4).
    worker = standInWorker(() => Promise.reject(new UnrecoverableError('the token lacks Datastore.Allocate on /storage/proxy-seeds')));
    const res = await getJob(`/v1/jobs/${id}?waitSeconds=20`);
    const body = res.json<JobAnswer>();
    expect(body.state).to.equal('failed');
    expect(body.failedReason).to.contain('Datastore.Allocate');
  });

  it('with waitSeconds on a job nobody runs answers with its current state after the wait', async () => {
    const id = await enqueue('web-slow');
    const res = await getJob(`/v1/jobs/${id}?waitSeconds=1`);
    expect(res.statusCode).to.equal(200);
    expect(res.json<JobAnswer>().state).to.equal('waiting');
  });

  it('an unknown job is 404, with or without a wait', async () => {
    for (const url of ['/v1/jobs/no-such-job', '/v1/jobs/no-such-job?waitSeconds=5']) {
      const res = await getJob(url);
      expect(res.statusCode, url).to.equal(404);
      expect(res.json(), url).to.include({ error: 'NotFound' });
    }
  });

  for (const bad of [String(MAX_WAIT_SECONDS + 1), '-1', '1.5', 'soon', '1e3']) {
    it(`waitSeconds=${bad} is 400 on the field waitSeconds`, async () => {
      const res = await getJob(`/v1/jobs/1?waitSeconds=${bad}`);
      expect(res.statusCode).to.equal(400);
      expect(res.json<{ fields: { field: string }[] }>().fields.map((f) => f.field)).to.deep.equal(['waitSeconds']);
    });
  }
});
