// SPEC 27: GET /v1/jobs/:id/events over a real socket, on the real Redis
// and producer client, with short intervals. The routes call the client
// through a wrapper that counts reads (and fails them while `failing`),
// so the tests see when a stream reads the job and when it stops. Jobs
// here are moved by a bare BullMQ worker standing in for ours, as in
// api-jobs.test.ts: the thing under test is the stream.
import { expect } from 'chai';
import { Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { ProvisionerClient } from '../../src/client.js';
import { VM_QUEUE } from '../../src/queue/queues.js';
import type { VmService } from '../../src/web/deps.js';
import { REDIS_URL, eventually } from '../support/redis.js';
import { readEventStream, type EventStreamRead, type ReadEvent } from '../support/sse-client.js';
import { buildTestWeb, listenOnLoopback, type TestWeb } from './helpers.js';

const MAX_STREAMS = 2;
const POLL_MS = 20;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /v1/jobs/:id/events: reads, heartbeats, limits and outages (SPEC 27)', () => {
  let web: TestWeb;
  let base: string;
  let reads = 0;
  let failing = false;
  let failure = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
  let worker: Worker | undefined;

  const counting = (client: ProvisionerClient): VmService => ({
    ...client,
    getJob: async (id) => {
      reads += 1;
      if (failing) throw failure();
      return client.getJob(id);
    },
  });

  beforeEach(async () => {
    reads = 0;
    failing = false;
    web = await buildTestWeb({}, { service: counting, jobEvents: { pollMs: POLL_MS, heartbeatMs: 50, maxStreams: MAX_STREAMS } });
    base = await listenOnLoopback(web.app);
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await web.close();
  });

  const untilReads = (count: number): Promise<true> => eventually(() => Promise.resolve(reads >= count ? true : undefined));
  const readsGoOn = (): Promise<true> => untilReads(reads + 5);
  const headers = (): Record<string, string> => ({ authorization: `Bearer ${web.token}` });
  const enqueue = async (name: string): Promise<string> => {
    const res = await web.app.inject({ method: 'POST', url: '/v1/vms', headers: headers(), payload: { name } });
    return res.json<{ jobId: string }>().jobId;
  };
  /** Reads until `stopWhen` holds or `signal` aborts. */
  const open = (jobId: string, options: { stopWhen?: (events: ReadEvent[]) => boolean; signal?: AbortSignal } = {}): Promise<EventStreamRead> =>
    readEventStream(`${base}/v1/jobs/${jobId}/events`, { headers: headers(), ...options });

  it('reads the job while the client listens, with heartbeat comments, and stops reading once it goes away', async () => {
    const jobId = await enqueue('events-leave');
    const leave = new AbortController();
    const reading = open(jobId, { signal: leave.signal });
    await untilReads(10);
    leave.abort();
    const read = await reading;
    expect(read.serverClosed).to.equal(false);
    expect(read.events.map((e) => e.event)).to.deep.equal(['state']);
    expect(read.comments, 'a quiet stream gets heartbeats').to.include('heartbeat');
    await sleep(10 * POLL_MS);
    const afterLeaving = reads;
    await sleep(25 * POLL_MS);
    expect(reads, 'no read after the client left').to.equal(afterLeaving);
  });

  it('leaves no timer behind: ten streams opened and left add no Timeout to the process', async () => {
    const jobId = await enqueue('events-timers');
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const leaveOne = async (): Promise<void> => {
      const read = await open(jobId, { stopWhen: (events) => events.length > 0 });
      expect(read.events[0]?.event).to.equal('state');
    };
    await leaveOne();
    await sleep(10 * POLL_MS);
    const before = timers();
    for (let i = 0; i < 10; i += 1) await leaveOne();
    await sleep(10 * POLL_MS);
    // Redis clients keep a timer or two of their own that come and go; ten leaked streams would add ten or twenty.
    expect(timers() - before).to.be.lessThan(4);
  });

  it('sends one unavailable event while reads fail, then goes on where it was, with nothing lost', async () => {
    const jobId = await enqueue('events-blip');
    const done = open(jobId);
    await untilReads(2);
    failing = true;
    const failedFrom = reads;
    await untilReads(failedFrom + 10);
    const job = await Job.fromId(web.queues.vm, jobId);
    await job?.log('written while the stream could not read');
    failing = false;
    worker = new Worker(
      VM_QUEUE,
      async (running) => {
        // Long enough for the stream to read the job active, then its step line.
        await readsGoOn();
        await running.log('step: cloned');
        await readsGoOn();
        return { address: '10.1.2.3' };
      },
      { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: web.prefix },
    );
    const read = await done;
    expect(read.serverClosed).to.equal(true);
    expect(read.events.map((e) => e.event), read.text).to.deep.equal(['state', 'unavailable', 'log', 'state', 'step', 'log', 'end']);
    expect(read.events[1]?.data).to.deep.equal({ message: 'cannot read the job now (connection refused); the stream goes on when it can' });
    expect(read.events[1]?.id, 'the client keeps its place').to.equal(undefined);
    expect(read.events[2]?.data).to.deep.equal({ index: 0, line: 'written while the stream could not read' });
    expect(read.events[6]?.data).to.deep.include({ state: 'completed', result: { address: '10.1.2.3' } });
  });

  it('names a Cluster failover when a read ran out of redirections (issue 16, SPEC 25)', async () => {
    const connectionRefused = failure;
    failure = () => new Error('Too many Cluster redirections. Last error: Error: Connection is closed.');
    try {
      const jobId = await enqueue('events-between-masters');
      const done = open(jobId, { stopWhen: (events) => events.some((e) => e.event === 'unavailable') });
      await untilReads(2);
      failing = true;
      const read = await done;
      const unavailable = read.events.find((e) => e.event === 'unavailable');
      expect(unavailable?.data).to.deep.equal({ message: 'cannot read the job now (a cluster slot is between masters: a failover may be under way); the stream goes on when it can' });
    } finally {
      failure = connectionRefused;
    }
  });

  it('shows a retry: a delayed state with the attempt made, then active again, then the end', async () => {
    const jobId = await enqueue('events-retry');
    const done = open(jobId);
    worker = new Worker(
      VM_QUEUE,
      async (running) => {
        if (running.attemptsMade === 0) throw new Error('pve1 answered 595 No route to host');
        await readsGoOn();
        return { address: '10.1.2.4' };
      },
      { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix: web.prefix, settings: { backoffStrategy: () => 20 * POLL_MS } },
    );
    const read = await done;
    const states = read.events.filter((e) => e.event === 'state').map((e) => e.data);
    expect(states, read.text).to.deep.include({ state: 'delayed', attemptsMade: 1 });
    expect(states[states.length - 1]).to.deep.equal({ state: 'active', attemptsMade: 1 });
    expect(read.events[read.events.length - 1]?.data).to.deep.include({ state: 'completed', attemptsMade: 2 });
  });

  it('refuses one stream more than its most with 503 and Retry-After, and takes one again once a stream closes', async () => {
    const jobId = await enqueue('events-many');
    const leave = new AbortController();
    const held = Array.from({ length: MAX_STREAMS }, () => open(jobId, { signal: leave.signal }));
    await untilReads(MAX_STREAMS * 3);
    const refused = await fetch(`${base}/v1/jobs/${jobId}/events`, { headers: headers() });
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('retry-after')).to.equal('5');
    expect(((await refused.json()) as { error: string }).error).to.equal('TooManyStreams');
    leave.abort();
    await Promise.all(held);
    const again = await eventually(async () => {
      const read = await open(jobId, { stopWhen: (events) => events.length > 0 });
      return read.status === 200 ? read : undefined;
    });
    expect(again.events[0]?.event).to.equal('state');
  });

  it('ends its open streams when the server closes, so the close does not wait for the job', async () => {
    const jobId = await enqueue('events-close');
    const reading = open(jobId);
    await untilReads(2);
    await web.app.close();
    const read = await reading;
    expect(read.serverClosed).to.equal(true);
    const afterClose = reads;
    await sleep(10 * POLL_MS);
    expect(reads).to.equal(afterClose);
  });
});
