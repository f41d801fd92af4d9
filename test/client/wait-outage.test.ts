// SPEC 24, 25, 27: the producer library's waitForJob rides out a Redis
// that goes away after the job was read (a restart, a failover) until its
// deadline, and is still an error at once when Redis is down at the call.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createProvisionerClient, type JobView, type ProvisionerClient } from '../../src/client.js';
import { RedisUnavailableError } from '../../src/queue/connection.js';
import { startOwnRedis, type OwnRedis } from '../e2e/redis-server.js';
import { rejection } from '../support/rejection.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('waitForJob across a Redis outage (SPEC 24, 25, 27)', function () {
  this.timeout(60_000);
  let redis: OwnRedis;
  let client: ProvisionerClient;

  beforeEach(async () => {
    redis = await startOwnRedis();
    client = createProvisionerClient({ redisUrl: redis.url, prefix: 'pvep-test-wait-outage', config: {} });
  });
  afterEach(async () => {
    await client.close();
    await redis.close();
  });

  /** A create's wait, once it has read the job: what it saw so far, and its end. */
  async function waitingOn(name: string, timeoutMs: number): Promise<{ jobId: string; views: string[]; waiting: Promise<JobView> }> {
    const { jobId } = await client.createVm({ name });
    const views: string[] = [];
    const waiting = client.waitForJob(jobId, { timeoutMs, onView: (view) => views.push(view.state) });
    while (views.length === 0) await sleep(20);
    return { jobId, views, waiting };
  }

  it('keeps waiting through an outage that begins after the job was read, and answers once Redis is back', async () => {
    const { jobId, waiting } = await waitingOn('wait-outage', 8_000);
    await redis.stop();
    await sleep(1_500);
    await redis.start();
    // No worker runs: the wait ends at its deadline with the job as Redis has it.
    const view = await waiting;
    expect(view.id).to.equal(jobId);
    expect(view.state).to.equal('waiting');
  });

  it('keeps waiting through an outage that cuts off a read already sent (issue 16)', async () => {
    const { jobId, views, waiting } = await waitingOn('wait-cut-off', 8_000);
    // Redis holds every command from now on: the next poll's read is sent on a
    // ready connection and is still unanswered when the server goes away.
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    await admin.call('CLIENT', 'PAUSE', '20000', 'ALL');
    admin.disconnect();
    const seenBefore = views.length;
    await sleep(500);
    expect(views.length, 'no view read while Redis holds the commands').to.equal(seenBefore);
    // Down long enough for the client to give up the read it sent ('Reached the max retries per request limit').
    await redis.stop();
    await sleep(1_500);
    await redis.start();
    const view = await waiting;
    expect(view.id).to.equal(jobId);
    expect(view.state).to.equal('waiting');
  });

  it('is a RedisUnavailableError at once when Redis is down at the call', async () => {
    const { jobId } = await client.createVm({ name: 'wait-down' });
    await redis.stop();
    const started = Date.now();
    const err = await rejection(client.waitForJob(jobId, { timeoutMs: 30_000 }));
    expect(err).to.be.instanceOf(RedisUnavailableError);
    expect(Date.now() - started, 'not waiting out its 30 s timeout').to.be.below(15_000);
  });

  it('is a RedisUnavailableError at its deadline when Redis stays away', async () => {
    const { waiting } = await waitingOn('wait-gone', 2_000);
    const refused = rejection(waiting);
    await redis.stop();
    expect(await refused).to.be.instanceOf(RedisUnavailableError);
  });
});
