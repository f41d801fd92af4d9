// SPEC 24, 25: a worker started while the master holding our slot is down
// (SIGKILLed, its replica not yet promoted) waits the failover out, then
// takes jobs. In the failover test's full-suite run the two workers were
// still starting when the master was killed: their start gave up after
// ioredis's 16 redirections ("Too many Cluster redirections"), and the 200
// creates stayed waiting (issue 16).
import { expect } from 'chai';
import { createProvisionerClient, type ProvisionerClient } from '../../src/client.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import type { Provider } from '../../src/provider/types.js';
import type { WorkerService } from '../../src/worker/service.js';
import { startWorkerService } from '../../src/worker/service.js';
import { withCreate } from '../support/processor-deps.js';
import { startOwnCluster, type OwnCluster } from '../support/redis-cluster.js';
import { uniquePrefix } from '../support/redis.js';

describe('a worker started during a Cluster failover (SPEC 24, 25)', function () {
  this.timeout(120_000);
  let cluster: OwnCluster | undefined;
  let worker: WorkerService | undefined;
  let client: ProvisionerClient | undefined;

  after(async () => {
    await worker?.close(1000);
    await client?.close();
    await cluster?.close();
  });

  it('waits for the promoted replica and then takes a create', async () => {
    cluster = await startOwnCluster();
    const prefix = uniquePrefix('cluster-start');
    const tag = `{${prefix}}`;
    const config = loadConfig({
      env: {},
      overrides: { redis: { url: 'redis://127.0.0.1:6379', prefix, clusterNodes: cluster.nodes }, jobs: { concurrency: 2 }, budgets: { lockTtlMs: 2000 } },
    });
    const dead = await cluster.masterOf(tag);
    cluster.kill(dead);
    const created: string[] = [];
    const definitions = withCreate((data) => {
      const { name, uid } = data as { name: string; uid: string };
      created.push(name);
      return Promise.resolve({ vmid: 100, uid, state: 'Running' });
    });
    // Its first calls go to the dead master: they wait for the replica instead of failing the start.
    worker = await startWorkerService({ config, provider: {} as Provider, logger: silentLogger(), schedule: false, definitions });
    await cluster.promoted(tag, dead);
    client = createProvisionerClient({ redisUrl: config.redis.url, redis: config.redis, prefix, config });
    const { jobId } = await client.createVm({ name: 'after-failover', uid: 'u1' });
    const view = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(view.state).to.equal('completed');
    expect(created).to.deep.equal(['after-failover']);
  });
});
