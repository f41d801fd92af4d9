// SPEC 1 through the real worker service: a job BullMQ hands over after
// close() began goes back to wait untouched, for another worker. BullMQ
// 6.7 can do so when its blocking wait returned just before the close
// (docs/decisions.md, issue 16). A redis-server of the test's own: the
// test pauses its writes (CLIENT PAUSE), which must not stall the shared one.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createProvisionerClient, type ProvisionerClient } from '../../src/client.js';
import { loadConfig } from '../../src/config/index.js';
import type { Config } from '../../src/config/types.js';
import { silentLogger } from '../../src/log.js';
import type { Provider } from '../../src/provider/types.js';
import { VM_QUEUE } from '../../src/queue/queues.js';
import { startWorkerService } from '../../src/worker/service.js';
import { startOwnRedis, type OwnRedis } from '../e2e/redis-server.js';
import { withCreate } from '../support/processor-deps.js';
import { eventually, uniquePrefix } from '../support/redis.js';

/** Long enough that the test's close() surely comes first; the worker's writes wait it out. */
const PAUSE_MS = 3000;

function serviceOn(config: Config, handled: string[]): ReturnType<typeof startWorkerService> {
  const definitions = withCreate((data) => {
    const { name, uid } = data as { name: string; uid: string };
    handled.push(name);
    return Promise.resolve({ vmid: 100, uid, state: 'Running' });
  });
  return startWorkerService({ config, provider: {} as Provider, logger: silentLogger(), schedule: false, definitions });
}

describe('the worker service: a job handed over after close() began (SPEC 1)', function () {
  this.timeout(60_000);
  let own: OwnRedis | undefined;
  let redis: Redis | undefined;
  let client: ProvisionerClient | undefined;

  after(async () => {
    await client?.close();
    redis?.disconnect();
    await own?.close();
  });

  it('is not run by the closing worker; it waits and another worker completes it', async () => {
    own = await startOwnRedis();
    const direct = new Redis(own.url);
    redis = direct;
    const prefix = uniquePrefix('late-job');
    const config = loadConfig({ env: {}, overrides: { redis: { url: own.url, prefix, clusterNodes: [] }, jobs: { concurrency: 1 } } });
    const byClosing: string[] = [];
    const closing = await serviceOn(config, byClosing);
    // The vm and system workers both blocked on their markers.
    await eventually(async () => (/blocked_clients:([2-9]|\d\d)/.test(await direct.info('clients')) ? true : undefined));
    // A paused queue keeps the create in wait, without the marker that wakes a worker.
    await direct.hset(`${prefix}:${VM_QUEUE}:meta`, 'paused', 1);
    client = createProvisionerClient({ redisUrl: own.url, redis: config.redis, prefix, config });
    const { jobId } = await client.createVm({ name: 'late-1', uid: 'u1' });
    // Resume as BullMQ's pause script does, then hold every write: the woken
    // worker's moveToActive waits for the pause while close() begins.
    await direct.pipeline().hdel(`${prefix}:${VM_QUEUE}:meta`, 'paused').zadd(`${prefix}:${VM_QUEUE}:marker`, 0, '0').client('PAUSE', PAUSE_MS, 'WRITE').exec();
    await closing.close(5000);
    expect(byClosing, 'run by the closing worker').to.deep.equal([]);
    expect((await client.getJob(jobId))?.state).to.equal('waiting');

    const byNext: string[] = [];
    const next = await serviceOn(config, byNext);
    try {
      expect((await client.waitForJob(jobId, { timeoutMs: 20_000 })).state).to.equal('completed');
      expect(byNext).to.deep.equal(['late-1']);
    } finally {
      await next.close(1000);
    }
  });
});
