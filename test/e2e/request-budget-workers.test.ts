// SPEC 26: proxmox.maxRequestsPerSecond bounds what all workers send
// together. Two real `worker` processes on one Redis prefix, with a budget
// of 5 requests a second, run creates enough to want far more against the
// simulator; the simulator's own request log then holds no calendar second,
// and no sliding one-second window, with more than 5 requests, and every
// create completed.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { serviceEnv, startCli, startSimChild, stopRun } from '../../bench/_processes.js';
import type { Child, SimChild } from '../../bench/_processes.js';
import { createProvisionerClient } from '../../src/client.js';
import type { ProvisionerClient } from '../../src/client.js';
import { loadConfig } from '../../src/config/index.js';
import { keys } from '../../src/redis-keys.js';
import { listLiveWorkers } from '../../src/queue/heartbeat.js';
import { NO_CLUSTER_ENV, REDIS_URL, deletePrefix, uniquePrefix } from '../support/redis.js';

const LIMIT = 5;
const CREATES = 8;

interface SimRequest {
  at: string;
  method: string;
  path: string;
}

function peakPerCalendarSecond(requests: SimRequest[]): number {
  const perSecond = new Map<string, number>();
  for (const { at } of requests) perSecond.set(at.slice(0, 19), (perSecond.get(at.slice(0, 19)) ?? 0) + 1);
  return Math.max(0, ...perSecond.values());
}

function peakPerSlidingSecond(requests: SimRequest[]): number {
  const times = requests.map((r) => Date.parse(r.at)).sort((a, b) => a - b);
  let peak = 0;
  for (let last = 0, first = 0; last < times.length; last += 1) {
    while ((times[last] as number) - (times[first] as number) >= 1000) first += 1;
    peak = Math.max(peak, last - first + 1);
  }
  return peak;
}

describe('two worker processes share one Proxmox request budget (SPEC 26)', function () {
  this.timeout(180_000);
  const prefix = uniquePrefix('budget-e2e');
  const redis = new Redis(REDIS_URL);
  let sim: SimChild | undefined;
  const workers: Child[] = [];
  let client: ProvisionerClient | undefined;

  after(async () => {
    await stopRun({ client, workers, sim });
    await deletePrefix(redis, prefix);
    await redis.del(...keys.proxmoxBudget(prefix));
    redis.disconnect();
  });

  it(`sends the simulator no more than ${LIMIT} requests in any second while ${CREATES} creates run, and completes them all`, async () => {
    sim = await startSimChild({ vms: 3, timeScale: 0.01 });
    const env = serviceEnv(sim, REDIS_URL, prefix, {
      // The test reads the budget and the client on the single Redis, even under npm run test:cluster.
      ...NO_CLUSTER_ENV,
      PROXMOX_MAX_REQUESTS_PER_SECOND: String(LIMIT),
      // The simulator's first node and the template it holds there.
      PROXMOX_NODES: JSON.stringify([{ name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' }]),
      JOBS_CONCURRENCY: '8',
      BUDGETS_POLL_MS: '50',
      HEALTH_EVERY_SECONDS: '3600',
      RECONCILER_EVERY_SECONDS: '3600',
    });
    workers.push(startCli(['worker'], env), startCli(['worker'], env));
    while ((await listLiveWorkers(redis, prefix)).length < 2) {
      const gone = workers.find((w) => w.process.exitCode !== null);
      if (gone) throw new Error(`a worker exited: ${gone.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const config = loadConfig({ env: {}, overrides: { redis: { url: REDIS_URL, prefix } } });
    client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });
    const names = Array.from({ length: CREATES }, (_, i) => `budget-${i}`);
    const jobs = await Promise.all(names.map((name) => client!.createVm({ name, uid: `uid-${name}`, waitForAddress: false })));
    const views = await Promise.all(jobs.map((job) => client!.waitForJob(job.jobId, { timeoutMs: 150_000 })));

    expect(views.map((v, i) => `${names[i] ?? ''}: ${v.state} ${v.failedReason ?? ''}`.trim())).to.deep.equal(names.map((name) => `${name}: completed`));
    const { requests } = await sim.control<{ requests: SimRequest[] }>('GET', '/_sim/requests');
    // Each create makes more than ten calls: the budget, not the work, set the pace.
    expect(requests.length).to.be.greaterThan(CREATES * 10);
    expect(peakPerCalendarSecond(requests), 'requests in the busiest calendar second').to.be.at.most(LIMIT);
    expect(peakPerSlidingSecond(requests), 'requests in the busiest sliding second').to.equal(LIMIT);
  });
});
