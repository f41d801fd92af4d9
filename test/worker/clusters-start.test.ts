// SPEC 32 (issue 34): a worker process of several clusters, wired as
// `worker` and `all` wire it (startWorkerProcess), on two simulators over
// HTTP, each its own cluster: each node's health names its cluster and
// its free memory, all in the one last-health key; a name recorded on the
// second cluster is made there, marked and tagged so, its seed record
// and learned times under that cluster's own keys; a cluster taken
// offline reads Unreachable on each of its nodes while the other stays up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { clusterKeyPrefix } from '../../src/config/clusters.js';
import type { Config } from '../../src/config/types.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { parseMark } from '../../src/provider/mark.js';
import { readLastHealth } from '../../src/queue/health-store.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { keys } from '../../src/redis-keys.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { startWorkerProcess } from '../../src/worker/start.js';
import type { WorkerService } from '../../src/worker/service.js';
import { deletePrefix, eventually, keyPrefix, newRedis, testConfig, uniquePrefix } from '../support/redis.js';

const TOKEN = 'root@pam!provisioner=5b0e1f3c-clusters-start-test';
const BUDGETS = { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 };
const CLUSTERS = ['east', 'west'] as const;

interface StateVm {
  vmid: number;
  node: string;
  config: Record<string, string | number>;
}

describe('a worker process of several clusters (SPEC 32)', function () {
  this.timeout(60_000);
  let dir: string;
  let tokenFile: string;
  let sims: Map<string, RunningSimulator>;
  let configured: string;
  let config: Config;
  let redis: Redis;
  let queues: Queues;
  let worker: WorkerService | undefined;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pvep-clusters-'));
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    sims = new Map();
    for (const name of CLUSTERS) sims.set(name, await startSimulator({ tokens: [TOKEN], nodes: ['pve1', 'pve2'], vms: 0, timeScale: 0.01 }));
    configured = uniquePrefix('clusters-start');
    config = testConfig(configured, {
      proxmox: { url: 'sim', tokenFile, maxRequestsPerSecond: 200, clusters: CLUSTERS.map((name) => ({ name, url: 'sim' })) },
      budgets: BUDGETS,
    });
    redis = newRedis();
    queues = createQueues(redis, keyPrefix(configured));
    const proxmoxUrls = new Map([...sims].map(([name, sim]) => [name, sim.url] as const));
    worker = await startWorkerProcess({ config, logger: silentLogger(), metrics: createMetrics(), proxmoxUrl: 'http://127.0.0.1:9', proxmoxUrls });
  });

  afterEach(async () => {
    await worker?.close(1000);
    worker = undefined;
    await queues.close();
    for (const sim of sims.values()) await sim.close();
    for (const prefix of [configured, ...CLUSTERS.map((name) => clusterKeyPrefix(configured, name))]) await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  async function vmsOn(cluster: string): Promise<StateVm[]> {
    const sim = sims.get(cluster);
    if (sim === undefined) throw new Error(`no simulator for ${cluster}`);
    const state = (await (await fetch(`${sim.url}/_sim/state`)).json()) as { vms: StateVm[] };
    return state.vms.filter((vm) => vm.config.template !== 1);
  }

  /** Waits for the job's end; fails naming its reason unless it completed. */
  async function ended(job: Job): Promise<void> {
    const state = await eventually(async () => {
      const now = await job.getState();
      return now === 'completed' || now === 'failed' ? now : undefined;
    }, 45_000);
    const reason = state === 'failed' ? (await (job.queueName === queues.vm.name ? queues.vm : queues.system).getJob(job.id ?? ''))?.failedReason : undefined;
    expect(state, reason).to.equal('completed');
  }

  it("the health at start holds every cluster's nodes in the one key, each naming its cluster and free memory", async () => {
    const last = await eventually(async () => {
      const read = await readLastHealth(redis, keyPrefix(configured));
      return read !== undefined && read.nodes.length === 4 ? read : undefined;
    });
    expect(last.nodes.map((n) => [n.cluster, n.node, n.ok])).to.deep.equal([
      ['east', 'pve1', true],
      ['east', 'pve2', true],
      ['west', 'pve1', true],
      ['west', 'pve2', true],
    ]);
    for (const node of last.nodes) expect(node.freeMemoryMiB).to.be.a('number').and.above(0);
  });

  it('a name recorded on the second cluster is made there, with its seed record and learned times under its own keys', async () => {
    const registry = new DesiredStateRegistry(redis, keyPrefix(configured), 60);
    const uid = 'd0000000-0000-4000-8000-0000000000d1';
    const spec = { name: 'on-west', uid, cores: 1, memoryMiB: 512, diskGiB: 8, waitForAddress: false };
    const recorded = await registry.recordPresent('on-west', uid, { ...spec, cluster: 'west' });
    if (recorded.kind === 'conflict') throw new Error('the record was refused');
    const job = await queues.vm.add('create', { ...spec, generation: recorded.generation }, { jobId: `create-on-west-${recorded.generation}` });
    await ended(job);

    const [made] = await vmsOn('west');
    expect(made?.config.name).to.equal('on-west');
    expect(parseMark(String(made?.config.description))).to.include({ uid, cluster: 'west' });
    expect(String(made?.config.tags).split(';')).to.include(`${config.proxmox.tag}-cluster-west`);
    expect(await vmsOn('east')).to.deep.equal([]);

    const west = clusterKeyPrefix(keyPrefix(configured), 'west');
    expect(Object.keys(await redis.hgetall(keys.seeds(west)))).to.deep.equal([`${made?.node ?? ''}/proxy-seeds:iso/on-west-seed.iso`]);
    expect(await redis.exists(keys.seeds(keyPrefix(configured)))).to.equal(0);
    expect(await redis.exists(keys.learnedTimes(clusterKeyPrefix(configured, 'west')))).to.equal(1);
    expect(await redis.exists(keys.learnedTimes(configured))).to.equal(0);
  });

  it('a cluster taken offline reads Unreachable on each of its nodes; the other stays up', async () => {
    await eventually(async () => ((await readLastHealth(redis, keyPrefix(configured)))?.nodes.length === 4 ? true : undefined));
    await sims.get('west')?.close();
    sims.delete('west');
    await ended(await queues.system.add('health', {}));
    const last = await readLastHealth(redis, keyPrefix(configured));
    const reasons = Object.fromEntries((last?.nodes ?? []).map((n) => [`${n.cluster ?? ''}/${n.node}`, n.reasons.map((r) => r.reason)]));
    expect(reasons).to.deep.equal({ 'east/pve1': [], 'east/pve2': [], 'west/pve1': ['Unreachable'], 'west/pve2': ['Unreachable'] });
  });
});
