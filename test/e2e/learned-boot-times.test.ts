// SPEC 26, SPEC 28, issue 27: the learned boot time lives in Redis, so a
// worker process started after another has learned it asks the guest agent
// no earlier than that time, and gets at most one `QEMU guest agent is not
// running` per create (each holds a pvedaemon worker ~3 s, audit 4.2).
// With nothing learned, the first call comes budgets.firstAddressSeconds
// after the start. Two real `worker` processes, one after the other, on
// one prefix, against the simulator over HTTP; the simulator's request log
// gives each VM's start and agent calls. Time scaled down 10 times: boots
// take 4.7 s, firstAddressSeconds 3 stands for the default 30.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { serviceEnv, startCli, startSimChild, stopRun } from '../../bench/_processes.js';
import type { Child, SimChild } from '../../bench/_processes.js';
import { createProvisionerClient } from '../../src/client.js';
import type { ProvisionerClient } from '../../src/client.js';
import { loadConfig } from '../../src/config/index.js';
import { listLiveWorkers } from '../../src/queue/heartbeat.js';
import { keys } from '../../src/redis-keys.js';
import { parseLearned } from '../../src/queue/learned-times-store.js';
import { NO_CLUSTER_ENV, REDIS_URL, deletePrefix, uniquePrefix } from '../support/redis.js';

const TIME_SCALE = 0.1;
const FIRST_ADDRESS_SECONDS = 3;
const CREATES = 3;

interface SimRequest {
  at: string;
  method: string;
  path: string;
  status: number;
}

interface AgentCalls {
  vmid: number;
  startAt: number;
  /** Each agent call's time after the start request, and its status. */
  calls: { afterMs: number; status: number }[];
}

/** Per VM started: its start request's time, and its agent calls after it. */
function agentCallsPerVm(requests: SimRequest[]): AgentCalls[] {
  const starts = new Map<number, number>();
  const calls = new Map<number, { at: number; status: number }[]>();
  for (const r of requests) {
    const start = /\/qemu\/(\d+)\/status\/start$/.exec(r.path);
    if (start && r.method === 'POST') starts.set(Number(start[1]), Date.parse(r.at));
    const agent = /\/qemu\/(\d+)\/agent\/network-get-interfaces$/.exec(r.path);
    if (agent) {
      const vmid = Number(agent[1]);
      calls.set(vmid, [...(calls.get(vmid) ?? []), { at: Date.parse(r.at), status: r.status }]);
    }
  }
  return [...starts].map(([vmid, startAt]) => ({ vmid, startAt, calls: (calls.get(vmid) ?? []).map((c) => ({ afterMs: c.at - startAt, status: c.status })) }));
}

describe('learned boot times shared by worker processes through Redis (SPEC 26, issue 27)', function () {
  this.timeout(240_000);
  const prefix = uniquePrefix('learned-e2e');
  const redis = new Redis(REDIS_URL);
  let sim: SimChild | undefined;
  const workers: Child[] = [];
  let client: ProvisionerClient | undefined;

  after(async () => {
    await stopRun({ client, workers, sim });
    await deletePrefix(redis, prefix);
    redis.disconnect();
  });

  async function startWorker(env: Record<string, string>): Promise<Child> {
    const worker = startCli(['worker'], env);
    workers.push(worker);
    while ((await listLiveWorkers(redis, prefix)).length < 1) {
      if (worker.process.exitCode !== null) throw new Error(`the worker exited: ${worker.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return worker;
  }

  async function createAll(round: string): Promise<void> {
    const names = Array.from({ length: CREATES }, (_, i) => `${round}-${i}`);
    const jobs = await Promise.all(names.map((name) => client!.createVm({ name, uid: `uid-${name}`, waitForAddress: true })));
    const views = await Promise.all(jobs.map((job) => client!.waitForJob(job.jobId, { timeoutMs: 150_000 })));
    expect(views.map((v, i) => `${names[i] ?? ''}: ${v.state} ${v.failedReason ?? ''}`.trim())).to.deep.equal(names.map((name) => `${name}: completed`));
  }

  async function requestsSoFar(): Promise<SimRequest[]> {
    const { requests } = await sim!.control<{ requests: SimRequest[] }>('GET', '/_sim/requests');
    await sim!.control('DELETE', '/_sim/requests');
    return requests;
  }

  it('the first worker waits firstAddressSeconds before its first agent call; a second started later asks no earlier than the learned boot time, at most one not-running answer per create', async () => {
    sim = await startSimChild({ vms: 3, timeScale: TIME_SCALE });
    const env = serviceEnv(sim, REDIS_URL, prefix, {
      ...NO_CLUSTER_ENV,
      PROXMOX_NODES: JSON.stringify([{ name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' }]),
      PROXMOX_MAX_REQUESTS_PER_SECOND: '0',
      JOBS_CONCURRENCY: String(CREATES),
      BUDGETS_POLL_MS: String(1000 * TIME_SCALE),
      BUDGETS_FIRST_ADDRESS_SECONDS: String(FIRST_ADDRESS_SECONDS),
      HEALTH_EVERY_SECONDS: '3600',
      RECONCILER_EVERY_SECONDS: '3600',
    });
    const config = loadConfig({ env: {}, overrides: { redis: { url: REDIS_URL, prefix }, proxmox: { nodes: [{ name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' }] } } });
    client = createProvisionerClient({ redisUrl: REDIS_URL, prefix, config });

    const first = await startWorker(env);
    await createAll('cold');
    await first.stop();
    const cold = agentCallsPerVm(await requestsSoFar());
    expect(cold).to.have.length(CREATES);
    for (const vm of cold) {
      expect(vm.calls[0]?.afterMs, `VM ${vm.vmid}'s first agent call after its start (ms)`).to.be.at.least(FIRST_ADDRESS_SECONDS * 1000);
    }

    // What the first worker learned, as Redis keeps it: the boot time of the one image.
    const stored = Object.entries(await redis.hgetall(keys.learnedTimes(prefix))).filter(([kind]) => kind.startsWith('address:'));
    expect(stored.map(([kind]) => kind)).to.have.length(1);
    const learnedMs = parseLearned(stored[0]?.[1] ?? '', Date.now())?.mean ?? Number.NaN;
    expect(learnedMs).to.be.above(FIRST_ADDRESS_SECONDS * 1000);

    await startWorker(env);
    await createAll('warm');
    const warm = agentCallsPerVm(await requestsSoFar());

    expect(warm).to.have.length(CREATES);
    for (const vm of warm) {
      expect(vm.calls[0]?.afterMs, `VM ${vm.vmid}'s first agent call after its start (ms)`).to.be.at.least(learnedMs);
      const notRunning = vm.calls.filter((c) => c.status !== 200);
      expect(notRunning, `VM ${vm.vmid}'s agent calls ${JSON.stringify(vm.calls)}`).to.have.length.at.most(1);
    }
  });
});
