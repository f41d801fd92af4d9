// SPEC 24, 27: GET /v1/jobs/:id/events on one job share one read of it
// per interval however many streams follow it, and a stream lasts at
// most http.eventStreamMaxSeconds, ending with an event an EventSource
// reconnects after, its Last-Event-ID resuming where it was. The routes
// call the client through a wrapper that counts reads; the job is run by
// a bare BullMQ worker standing in for ours, as in api-job-events.test.ts.
import { expect } from 'chai';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { ProvisionerClient } from '../../src/client.js';
import { VM_QUEUE } from '../../src/queue/queues.js';
import type { VmService } from '../../src/web/deps.js';
import type { JobEventOptions } from '../../src/web/job-event-options.js';
import { REDIS_URL } from '../support/redis.js';
import { readEventStream, type EventStreamRead } from '../support/sse-client.js';
import { buildTestWeb, listenOnLoopback, type TestWeb } from './helpers.js';

const POLL_MS = 20;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /v1/jobs/:id/events: shared reads and a longest stream (SPEC 24, 27)', function () {
  this.timeout(60_000);
  let web: TestWeb;
  let base: string;
  let reads = 0;
  let worker: Worker | undefined;

  const counting = (client: ProvisionerClient): VmService => ({
    ...client,
    getJob: (id) => {
      reads += 1;
      return client.getJob(id);
    },
  });

  async function start(jobEvents: Partial<JobEventOptions>): Promise<void> {
    reads = 0;
    web = await buildTestWeb({}, { service: counting, jobEvents: { pollMs: POLL_MS, ...jobEvents } });
    base = await listenOnLoopback(web.app);
  }
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await web.close();
  });

  const headers = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const enqueue = async (name: string): Promise<string> => {
    const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: headers(), payload: { name } });
    return res.json<{ jobId: string }>().jobId;
  };
  const open = (jobId: string, options: { signal?: AbortSignal; lastEventId?: string } = {}): Promise<EventStreamRead> =>
    readEventStream(`${base}/v1/jobs/${jobId}/events`, {
      headers: { ...headers(), ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }) },
      ...(options.signal ? { signal: options.signal } : {}),
    });

  it('ten streams on one job read it about as often as one stream does', async () => {
    await start({ maxStreams: 20 });
    const jobId = await enqueue('events-shared');
    /** Reads in one second of `streams` streams, once each is open. */
    const readsOf = async (streams: number): Promise<number> => {
      const leave = new AbortController();
      const held = Array.from({ length: streams }, () => open(jobId, { signal: leave.signal }));
      await sleep(500);
      const from = reads;
      await sleep(1_000);
      const counted = reads - from;
      leave.abort();
      for (const read of await Promise.all(held)) expect(read.events[0]?.event).to.equal('state');
      await sleep(10 * POLL_MS);
      return counted;
    };
    const one = await readsOf(1);
    const ten = await readsOf(10);
    expect(one, 'one stream reads the job').to.be.greaterThan(0);
    expect(ten, `one stream: ${one} reads a second, ten: ${ten}`).to.be.at.most(one * 2);
  });

  it('ends a stream at its longest with a reconnect event that moves no Last-Event-ID; resumed from it, nothing repeats and the end comes', async () => {
    await start({ maxSeconds: 1 });
    const jobId = await enqueue('events-lifetime');
    const first = await open(jobId);
    expect(first.serverClosed).to.equal(true);
    expect(first.events.map((e) => e.event), first.text).to.deep.equal(['state', 'reconnect']);
    expect(first.events[1]?.id, 'the client keeps its place').to.equal(undefined);
    expect(first.events[1]?.data).to.deep.equal({ message: 'this stream was open 1 s, its most; reconnect with Last-Event-ID to go on where it was' });

    worker = new Worker(
      VM_QUEUE,
      async (running) => {
        await running.log('step: cloned');
        return { address: '10.1.2.5' };
      },
      { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: web.prefix },
    );
    const second = await open(jobId, { lastEventId: first.events[0]?.id ?? '' });
    const events = second.events.map((e) => e.event);
    expect(second.serverClosed).to.equal(true);
    expect(events, second.text).to.not.include('reconnect');
    expect(events.slice(-3), second.text).to.deep.equal(['step', 'log', 'end']);
    expect(second.events.filter((e) => e.event === 'state').map((e) => e.data), 'the waiting state is not sent again').to.not.deep.include({ state: 'waiting', attemptsMade: 0 });
  });
});
