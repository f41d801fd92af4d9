// SPEC 24: GET /v1/jobs/:id?waitSeconds= costs Redis once per job, not
// once per waiter (the waits on a job share one read of it), and a web
// process holds at most http.maxJobWaiters waits. The Redis work is
// counted with MONITOR; nobody runs the job, so each wait lasts its time.
import { expect } from 'chai';
import type { LightMyRequestResponse } from 'fastify';
import type { UncheckedProvisionerClient } from '../../src/client.js';
import type { VmService } from '../../src/web/deps.js';
import { CAN_MONITOR, monitorPrefix, type RedisMonitor } from '../support/redis-monitor.js';
import { eventually } from '../support/redis.js';
import { buildTestWeb, type TestWeb } from './helpers.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /v1/jobs/:id?waitSeconds: one read per job, at most http.maxJobWaiters waits (SPEC 24)', function () {
  this.timeout(60_000);
  let web: TestWeb | undefined;
  let monitor: RedisMonitor | undefined;
  afterEach(async () => {
    monitor?.close();
    monitor = undefined;
    // A test skipped under `npm run test:cluster` built none.
    await web?.close();
    web = undefined;
  });

  const built = (): TestWeb => {
    if (web === undefined) throw new Error('no web app built yet');
    return web;
  };
  const get = (url: string): Promise<LightMyRequestResponse> => built().app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${built().token}` } });
  async function enqueue(name: string): Promise<string> {
    const res = await built().app.inject({ method: 'POST', url: '/v1/vms', headers: { authorization: `Bearer ${built().token}` }, payload: { name } });
    return res.json<{ jobId: string }>().jobId;
  }

  it('fifty waits on one job cost Redis about what one wait costs', async function () {
    if (!CAN_MONITOR) this.skip();
    web = await buildTestWeb();
    const id = await enqueue('waits-shared');
    const watching = await monitorPrefix(web.prefix);
    monitor = watching;
    /** Redis commands in one second of `waiters` waits, once each has made its first read. */
    const costOf = async (waiters: number): Promise<number> => {
      const waits = Array.from({ length: waiters }, () => get(`/v1/jobs/${id}?waitSeconds=4`));
      await sleep(1_000);
      await watching.settle();
      watching.reset();
      await sleep(1_000);
      await watching.settle();
      const commands = watching.commands().length;
      for (const answer of await Promise.all(waits)) expect(answer.json<{ state: string }>().state).to.equal('waiting');
      return commands;
    };
    const one = await costOf(1);
    const fifty = await costOf(50);
    expect(one, 'one wait reads the job').to.be.greaterThan(0);
    expect(fifty, `one wait: ${one} commands a second, fifty: ${fifty}`).to.be.at.most(one * 2 + 20);
  });

  it('refuses a wait past http.maxJobWaiters with 503 and Retry-After, still answers without a wait, and takes a wait again once one ends', async () => {
    let inWait = 0;
    const counting = (client: UncheckedProvisionerClient): VmService => ({
      ...client,
      waitForJob: async (id, options) => {
        inWait += 1;
        try {
          return await client.waitForJob(id, options);
        } finally {
          inWait -= 1;
        }
      },
    });
    web = await buildTestWeb({ maxJobWaiters: 2 }, { service: counting });
    const id = await enqueue('waits-capped');
    const held = [get(`/v1/jobs/${id}?waitSeconds=3`), get(`/v1/jobs/${id}?waitSeconds=3`)];
    await eventually(() => Promise.resolve(inWait === 2 ? true : undefined));
    const refused = await get(`/v1/jobs/${id}?waitSeconds=1`);
    expect(refused.statusCode).to.equal(503);
    expect(refused.headers['retry-after']).to.equal('5');
    expect(refused.json<{ error: string; message: string }>()).to.include({ error: 'TooManyWaiters' });
    expect(refused.json<{ message: string }>().message).to.include('http.maxJobWaiters');
    const now = await get(`/v1/jobs/${id}`);
    expect(now.statusCode).to.equal(200);
    expect(now.json<{ state: string }>().state).to.equal('waiting');
    for (const answer of await Promise.all(held)) expect(answer.statusCode).to.equal(200);
    const again = await get(`/v1/jobs/${id}?waitSeconds=1`);
    expect(again.statusCode).to.equal(200);
  });

  it('a wait on a job removed meanwhile answers 404 once the shared read sees it gone, not when its waitSeconds run out', async () => {
    let waitsRead = 0;
    const app = await buildTestWeb({}, {
      service: (client) => ({
        ...client,
        // Counts the waits that have made their own first read and listen to the watch.
        waitForJob: (id, options) => client.waitForJob(id, { ...options, onView: () => (waitsRead += 1) }),
      }),
    });
    web = app;
    const id = await enqueue('waits-removed');
    // Were the removal missed, each wait would answer 200 with the last view when its time ran out.
    const waits = [get(`/v1/jobs/${id}?waitSeconds=20`), get(`/v1/jobs/${id}?waitSeconds=20`)];
    await eventually(() => Promise.resolve(waitsRead >= 2 ? true : undefined));
    await app.queues.vm.remove(id);
    for (const answer of await Promise.all(waits)) {
      expect(answer.statusCode, answer.body).to.equal(404);
      expect(answer.json<{ error: string; message: string }>()).to.deep.equal({ error: 'NotFound', message: `job ${id} is gone` });
    }
  });
});
