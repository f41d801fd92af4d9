// /readyz's view of the workers: a running worker keeps its heartbeat key,
// a closed one removes it, and a dead one's key expires.
import { expect } from 'chai';
import { listLiveWorkers, startHeartbeat } from '../../src/queue/heartbeat.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { eventually, newRedis } from '../support/redis.js';

describe('worker heartbeats', function () {
  let h: Harness;

  afterEach(async () => {
    await h.close();
  });

  it('lists a running worker and drops it when it closes', async () => {
    h = createHarness('beat');
    const worker = await h.startWorker({ id: 'w-1' });
    const live = await listLiveWorkers(h.redis, h.prefix);
    expect(live.map((w) => [w.id, w.pid, w.concurrency])).to.deep.equal([['w-1', process.pid, h.config.jobs.concurrency]]);
    await worker.close(1000);
    expect(await listLiveWorkers(h.redis, h.prefix)).to.deep.equal([]);
  });

  it('a worker that stops beating drops out after its TTL', async () => {
    h = createHarness('beat-ttl');
    const own = newRedis();
    const beat = startHeartbeat(own, h.prefix, 'w-dead', 1, 50);
    await eventually(async () => ((await listLiveWorkers(h.redis, h.prefix)).length === 1 ? true : undefined));
    // Its connection gone, as when the process dies: no beat, no clean delete.
    own.disconnect();
    await beat.stop();
    await eventually(async () => ((await listLiveWorkers(h.redis, h.prefix)).length === 0 ? true : undefined), 2000);
  });
});
