// SPEC 24: Bull Board is read-only unless http.boardWritable is true. Over
// HTTP, every changing route of @bull-board/api's own route table (so a
// route a later version adds is covered too) answers 405 and changes
// nothing in Redis; its reads still answer. Writable, board users may
// change jobs and queues, but adding a job ("Duplicate") and replacing job
// data stay refused: they would copy the "<n bytes, not shown>"
// placeholder in as user-data and bypass the desired state (SPEC 2).
import { expect } from 'chai';
import { appRoutes } from '@bull-board/api/dist/routes.js';
import type { AddressInfo } from 'node:net';
import { Worker } from 'bullmq';
import { createWorkerConnection } from '../../src/queue/connection.js';
import { basicHeader, buildTestWeb, type TestWeb } from './helpers.js';
import { REDIS_URL } from '../support/redis.js';

interface Fixture {
  failedJobId: string;
  delayedJobId: string;
}

/** What a refused call must leave untouched: job ids by state, the pause flag, the schedulers, the data. */
async function snapshot(web: TestWeb, fixture: Fixture): Promise<string> {
  const queue = web.queues.vm;
  const jobs = await queue.getJobs(['waiting', 'delayed', 'failed', 'completed', 'active', 'prioritized']);
  const states = await Promise.all(jobs.map(async (job) => `${job.id ?? ''}:${await job.getState()}:${job.priority}:${job.delay}`));
  const schedulers = await queue.getJobSchedulers();
  const failed = await queue.getJob(fixture.failedJobId);
  return JSON.stringify({
    states: states.sort(),
    paused: await queue.isPaused(),
    schedulers: schedulers.map((s) => `${s.key}:${String(s.every)}`).sort(),
    data: failed?.data as unknown,
    concurrency: await queue.getGlobalConcurrency(),
  });
}

async function seed(web: TestWeb): Promise<Fixture> {
  const queue = web.queues.vm;
  const failed = await queue.add('check', { name: 'ro-failed' }, { jobId: 'ro-failed-1' });
  // A failed job without a worker: move it by hand with a token.
  const connection = createWorkerConnection(REDIS_URL);
  const worker = new Worker(queue.name, undefined, { connection, prefix: web.prefix, autorun: false });
  const taken = await worker.getNextJob('ro-token');
  await taken?.moveToFailed(new Error('made to fail'), 'ro-token', false);
  await worker.close();
  connection.disconnect();
  const delayed = await queue.add('check', { name: 'ro-delayed' }, { jobId: 'ro-delayed-1', delay: 3_600_000 });
  await queue.upsertJobScheduler('ro-scheduler', { every: 3_600_000 }, { name: 'check', data: { name: 'ro-scheduled' } });
  return { failedJobId: failed.id ?? '', delayedJobId: delayed.id ?? '' };
}

function pathOf(route: string, fixture: Fixture, status = 'failed'): string {
  return `/admin/queues${route}`
    .replace(':queueName', 'vm')
    .replace(':queueStatus', status)
    .replace(':schedulerId', 'ro-scheduler')
    .replace(':jobId', fixture.failedJobId);
}

/** A body the route would accept, so a 405 is the guard's doing and not a schema's. */
const BODIES: Record<string, unknown> = {
  '/api/queues/:queueName/add': { name: 'create', data: { name: 'board-added', userData: '<222 bytes, not shown>' }, options: {} },
  '/api/queues/:queueName/concurrency': { concurrency: 3 },
  '/api/queues/:queueName/rate-limit': { max: 1, duration: 1000 },
  '/api/queues/:queueName/obliterate': { force: true },
  '/api/queues/:queueName/job-schedulers/:schedulerId': { every: 60_000 },
  '/api/queues/:queueName/:jobId/update-data': { data: { name: 'ro-failed', userData: '<222 bytes, not shown>' } },
  '/api/queues/:queueName/:jobId/delay': { delay: 1000 },
  '/api/queues/:queueName/:jobId/priority': { priority: 5 },
};

const methodOf = (route: (typeof appRoutes.api)[number]): string => (Array.isArray(route.method) ? (route.method[0] ?? 'get') : route.method).toUpperCase();
const changingRoutes = appRoutes.api.filter((route) => methodOf(route) !== 'GET');
const readingRoutes = appRoutes.api.filter((route) => methodOf(route) === 'GET');

describe('Bull Board read-only unless http.boardWritable (SPEC 24)', function () {
  this.timeout(60_000);

  it("@bull-board's route table has the changing routes this test expects to find", () => {
    const routes = changingRoutes.map((r) => (Array.isArray(r.route) ? r.route.join(',') : r.route));
    for (const expected of ['/api/queues/:queueName/add', '/api/queues/:queueName/obliterate', '/api/queues/:queueName/:jobId/retry', '/api/queues/:queueName/job-schedulers/:schedulerId']) {
      expect(routes).to.include(expected);
    }
    expect(changingRoutes.length).to.be.at.least(20);
  });

  describe('by default', () => {
    let web: TestWeb;
    let base: string;
    let fixture: Fixture;
    let authorization: string;

    before(async () => {
      web = await buildTestWeb();
      fixture = await seed(web);
      await web.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(web.app.server.address() as AddressInfo).port}`;
      authorization = basicHeader(web.boardUser, web.boardPassword);
    });
    after(() => web.close());

    for (const route of changingRoutes) {
      const pattern = Array.isArray(route.route) ? (route.route[0] ?? '') : route.route;
      it(`${methodOf(route)} ${pattern} answers 405 and changes nothing`, async () => {
        const before = await snapshot(web, fixture);
        const body = BODIES[pattern];
        const res = await fetch(`${base}${pathOf(pattern, fixture)}`, {
          method: methodOf(route),
          headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(res.status).to.equal(405);
        expect(res.headers.get('allow')).to.equal('GET, HEAD');
        const answer = (await res.json()) as { message: string };
        expect(answer.message).to.match(/read-only/).and.to.match(/http\.boardWritable/);
        expect(await snapshot(web, fixture)).to.equal(before);
      });
    }

    it('still answers every read, and lists the queues as read-only', async () => {
      for (const route of readingRoutes) {
        const pattern = Array.isArray(route.route) ? (route.route[0] ?? '') : route.route;
        const res = await fetch(`${base}${pathOf(pattern, fixture)}`, { headers: { authorization } });
        expect(res.status, pattern).to.be.below(500).and.not.equal(405);
      }
      const queues = (await (await fetch(`${base}/admin/queues/api/queues`, { headers: { authorization } })).json()) as { queues: { name: string; readOnlyMode: boolean }[] };
      expect(queues.queues.map((q) => q.readOnlyMode)).to.deep.equal([true, true]);
    });

    it('refuses a changing call before the credentials are checked only with 401, never by running it', async () => {
      const before = await snapshot(web, fixture);
      const res = await fetch(`${base}/admin/queues/api/queues/vm/obliterate`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"force":true}' });
      expect(res.status).to.equal(401);
      expect(await snapshot(web, fixture)).to.equal(before);
    });
  });

  describe('with http.boardWritable', () => {
    let web: TestWeb;
    let fixture: Fixture;
    let authorization: string;

    before(async () => {
      web = await buildTestWeb({ boardWritable: true });
      fixture = await seed(web);
      authorization = basicHeader(web.boardUser, web.boardPassword);
    });
    after(() => web.close());

    it('lets a board user retry a failed job and pause the queue', async () => {
      const retried = await web.app.inject({ method: 'PUT', url: `/admin/queues/api/queues/vm/${fixture.failedJobId}/retry`, headers: { authorization } });
      expect(retried.statusCode).to.be.below(300);
      expect(await (await web.queues.vm.getJob(fixture.failedJobId))?.getState()).to.equal('waiting');
      const paused = await web.app.inject({ method: 'PUT', url: '/admin/queues/api/queues/vm/pause', headers: { authorization } });
      expect(paused.statusCode).to.be.below(300);
      expect(await web.queues.vm.isPaused()).to.equal(true);
    });

    it('still refuses to add a job (Duplicate) or replace job data, which would copy the placeholder in as user-data', async () => {
      const before = await snapshot(web, fixture);
      for (const pattern of ['/api/queues/:queueName/add', '/api/queues/:queueName/:jobId/update-data']) {
        const res = await web.app.inject({ method: pattern.endsWith('add') ? 'POST' : 'PATCH', url: pathOf(pattern, fixture), headers: { authorization }, payload: BODIES[pattern] as object });
        expect(res.statusCode, pattern).to.equal(405);
        expect((res.json<{ message: string }>()).message).to.match(/POST \/v1\/vms/);
      }
      expect(await snapshot(web, fixture)).to.equal(before);
      expect(await web.queues.vm.getJobs(['waiting', 'delayed', 'failed'])).to.satisfy((jobs: { data: { name?: string } }[]) => jobs.every((j) => j.data.name !== 'board-added'));
    });
  });

  describe('with http.boardWritable and http.authDisabled', () => {
    let web: TestWeb;
    let fixture: Fixture;
    before(async () => {
      web = await buildTestWeb({ boardWritable: true, authDisabled: true });
      fixture = await seed(web);
    });
    after(() => web.close());

    it('stays read-only: an open board is never writable', async () => {
      const before = await snapshot(web, fixture);
      const res = await web.app.inject({ method: 'PUT', url: '/admin/queues/api/queues/vm/pause' });
      expect(res.statusCode).to.equal(405);
      expect(await snapshot(web, fixture)).to.equal(before);
    });
  });
});
