// SPEC 27 with SPEC 24: a job's event stream across a real Redis outage.
// `all` runs in-process on the simulator against a redis-server of the
// test's own; the stream is opened, Redis is stopped mid-create and
// started again. The stream stays open through it and ends with the
// job's end, each log line once, in order.
import { expect } from 'chai';
import type { RunningAll } from '../../src/cli/all.js';
import { startServiceOnSim, type ServiceOnSim } from '../support/service-on-sim.js';
import { readEventStream } from '../support/sse-client.js';
import { startOwnRedis, type OwnRedis } from './redis-server.js';

const OUTAGE_MS = 3_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('job events across a Redis outage (SPEC 27, SPEC 24)', function () {
  this.timeout(120_000);
  let redis: OwnRedis;
  let service: ServiceOnSim | undefined;
  let running: RunningAll | undefined;
  let headers: Record<string, string>;

  before(async () => {
    redis = await startOwnRedis();
    // Slow enough that the create is still running when Redis stops.
    service = await startServiceOnSim('events-outage', { redisUrl: redis.url, overrides: { sim: { timeScale: 0.5 } } });
    ({ running, headers } = service);
  });

  after(async () => {
    await redis.start().catch(() => undefined);
    await service?.close();
    await redis.close();
  });

  it('keeps the stream open while Redis is down, then ends it with the end, every log line once and in order', async () => {
    const base = running?.web.url ?? '';
    const res = await fetch(`${base}/v1/vms`, { method: 'POST', headers, body: JSON.stringify({ name: 'events-outage' }) });
    expect(res.status, await res.clone().text()).to.equal(202);
    const { jobId } = (await res.json()) as { jobId: string };
    let closedBy = 0;
    const reading = readEventStream(`${base}/v1/jobs/${jobId}/events`, { headers: { authorization: headers.authorization ?? '' } }).then((read) => {
      closedBy = Date.now();
      return read;
    });
    // Stop Redis once the create is under way (its first step logged).
    for (;;) {
      const job = (await (await fetch(`${base}/v1/jobs/${jobId}`, { headers })).json()) as { logs?: string[] };
      if (job.logs?.includes('step: cloned') === true) break;
      await sleep(50);
    }
    await redis.stop();
    await sleep(OUTAGE_MS);
    expect(closedBy, 'the stream stayed open while Redis was down').to.equal(0);
    const restarted = Date.now();
    await redis.start();
    const read = await reading;

    expect(read.serverClosed).to.equal(true);
    expect(closedBy).to.be.at.least(restarted);
    const last = read.events[read.events.length - 1];
    expect(last?.event, read.text).to.equal('end');
    expect(last?.data, read.text).to.deep.include({ state: 'completed' });
    expect(read.events.filter((e) => e.event === 'unavailable').length, read.text).to.equal(1);
    const ids = read.events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
    expect(new Set(ids).size, 'no event twice').to.equal(ids.length);
    const logs = read.events.filter((e) => e.event === 'log').map((e) => e.data as { index: number; line: string });
    expect(logs.map((l) => l.index)).to.deep.equal(logs.map((_, i) => i));
    const job = (await (await fetch(`${base}/v1/jobs/${jobId}`, { headers })).json()) as { logs: string[] };
    expect(logs.map((l) => l.line)).to.deep.equal(job.logs);
  });
});
