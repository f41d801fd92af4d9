// SPEC 24 sim.stateFile, SPEC 5: the whole service in-process (startAll,
// as `npm start` runs it) makes a VM on the simulator, stops, and starts
// again on the same state file. The simulator still has the VM, and a
// sweep after the restart re-creates nothing: the registry in Redis and
// the simulated cluster agree.
import { expect } from 'chai';
import { ownJobId } from '../../src/job-table/job-ids.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startAll, type RunningAll } from '../../src/cli/all.js';
import { createProvisionerClient, type ProvisionerClient } from '../../src/client.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import type { ReconcileOutcome } from '../../src/reconciler/run.js';
import type { SweepReport } from '../../src/reconciler/report.js';
import { deletePrefix, REDIS_URL, uniquePrefix } from '../support/redis.js';

async function start(config: Config): Promise<RunningAll> {
  const running = await startAll(config, silentLogger(), { metrics: createMetrics(), webPort: 0, simPort: 0 });
  if (running === undefined) throw new Error('startAll refused to start');
  return running;
}

/** One sweep of ours; a scheduled one running at the same time makes ours skip, so it is asked again. */
async function sweep(client: ProvisionerClient, queues: Queues): Promise<SweepReport> {
  for (let attempt = 1; ; attempt++) {
    const job = await queues.system.add('reconcile', { dryRun: false }, { jobId: ownJobId('reconcile') });
    const view = await client.waitForJob(job.id ?? '', { timeoutMs: 20_000 });
    expect(view.state, view.failedReason).to.equal('completed');
    const outcome = view.result as ReconcileOutcome;
    if (!('skipped' in outcome)) return outcome;
    if (attempt >= 5) throw new Error('every sweep was skipped');
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe('sim.stateFile: a restart keeps the simulator\'s VMs, and the sweep re-creates nothing (SPEC 24, SPEC 5)', function () {
  this.timeout(90_000);
  let dir: string;
  let prefix: string;
  let config: Config;
  let running: RunningAll | undefined;
  let redis: Redis;
  let client: ProvisionerClient;
  let queues: Queues;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-restart-'));
    prefix = uniquePrefix('restart');
    config = loadConfig({
      env: {},
      overrides: {
        redis: { url: REDIS_URL, prefix },
        sim: { timeScale: 0.02, stateFile: join(dir, 'var', 'sim-state.json') },
        reconciler: { graceSeconds: 0 },
        proxmox: { tokenFile: join(dir, 'proxmox-token') },
        http: { apiTokensFile: join(dir, 'api-tokens'), boardUsersFile: join(dir, 'board-users'), fingerprintKeyFile: join(dir, 'fingerprint-key') },
      },
    });
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    queues = createQueues(redis, prefix);
    client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });
  });

  after(async () => {
    await running?.close();
    await client.close();
    await queues.close();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the VM and its seed across the restart; the sweep after it enqueues no create', async () => {
    running = await start(config);
    const { jobId } = await client.createVm({ name: 'kept-1', uid: 'owner-1', waitForAddress: false });
    expect((await client.waitForJob(jobId, { timeoutMs: 30_000 })).state).to.equal('completed');
    const before = [...running.sim!.sim.state.allVms()].find((vm) => vm.config.name === 'kept-1');
    expect(before, 'the VM on the first simulator').not.to.equal(undefined);
    await running.close();
    running = undefined;

    const file = config.sim.stateFile;
    expect(existsSync(file), 'the state file').to.equal(true);
    expect(readFileSync(file, 'utf8')).to.include('kept-1');

    running = await start(config);
    const after = [...running.sim!.sim.state.allVms()].find((vm) => vm.config.name === 'kept-1');
    expect(after, 'the VM on the restarted simulator').to.deep.include({ vmid: before?.vmid, node: before?.node, status: 'running' });
    const seeds = [...running.sim!.sim.state.node(before?.node ?? '').storages.values()].flatMap((s) => [...s.volumes.keys()]);
    expect(seeds).to.include('proxy-seeds:iso/kept-1-seed.iso');

    const report = await sweep(client, queues);
    expect(report.missing.reenqueued, 'creates re-enqueued').to.deep.equal([]);
    expect(report.orphans.deleted, 'VMs deleted').to.deep.equal([]);
    expect(report.errors).to.deep.equal([]);
    const creates = (await queues.vm.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).filter((job) => job.name === 'create');
    expect(creates.map((job) => job.id)).to.deep.equal([jobId]);
  });
});
