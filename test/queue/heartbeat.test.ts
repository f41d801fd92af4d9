// /readyz's view of the workers: a running worker keeps its heartbeat key,
// a closed one removes it, and a dead one's key expires.
import { expect } from 'chai';
import { keys } from '../../src/redis-keys.js';
import { listLiveWorkers, startHeartbeat } from '../../src/queue/heartbeat.js';
import { createHarness } from '../support/harness.js';
import type { Harness } from '../support/harness.js';
import { countingRedis, eventually, newRedis } from '../support/redis.js';

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

  it('finds the workers without a SCAN and removes an expired one from both keys (SPEC 25)', async () => {
    h = createHarness('beat-noscan');
    const own = newRedis();
    const dead = startHeartbeat(own, h.prefix, 'w-gone', 1, 50);
    const alive = startHeartbeat(h.redis, h.prefix, 'w-here', 1);
    await eventually(async () => ((await listLiveWorkers(h.redis, h.prefix)).length === 2 ? true : undefined));
    own.disconnect();
    await dead.stop();
    const { redis, sent } = await countingRedis();
    try {
      const live = await eventually(async () => {
        const found = await listLiveWorkers(redis, h.prefix);
        return found.length === 1 ? found : undefined;
      }, 2000);
      expect(live.map((w) => w.id)).to.deep.equal(['w-here']);
      expect(sent.map((name) => name.toLowerCase())).to.not.include('scan');
      expect(await h.redis.zrange(keys.workers(h.prefix), 0, -1)).to.deep.equal(['w-here']);
      expect(await h.redis.hkeys(keys.workerBeats(h.prefix))).to.deep.equal(['w-here']);
    } finally {
      redis.disconnect();
      await alive.stop();
    }
  });
});
