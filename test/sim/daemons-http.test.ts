// SPEC 28 over HTTP: every simulated node has its own pveproxy URL, a
// request enters the node whose URL it used, and /_sim/capacity reports
// per node and daemon what the calls cost. The model's arithmetic and
// queueing are in capacity.test.ts; these check the wiring a user relies on.
import { expect } from 'chai';
import type { PoolCounters } from '../../src/sim/worker-pool.js';
import { startSimulator } from '../../src/sim/index.js';
import { AUTH, NODES, TOKEN, startTestSim, type TestSim } from './sim-helpers.js';

const [N1, N2] = NODES as [string, string];

type Capacity = { proxyWorkers: number; daemonWorkers: number; nodes: Record<string, { pveproxy: PoolCounters; pvedaemon: PoolCounters }> };

async function capacity(sim: TestSim): Promise<Capacity> {
  return (await sim.control('GET', 'capacity')) as Capacity;
}

async function apiAt(base: string, method: string, path: string): Promise<Response> {
  return fetch(`${base}/api2/json${path}`, { method, headers: AUTH });
}

async function uploadAt(base: string, node: string): Promise<{ status: number; upid: string }> {
  const form = new FormData();
  form.append('content', 'iso');
  form.append('filename', new Blob([Buffer.alloc(2048, 1)]), 'seed.iso');
  const response = await fetch(`${base}/api2/json/nodes/${node}/storage/proxy-seeds/upload`, { method: 'POST', body: form, headers: AUTH });
  const body = (await response.json()) as { data?: string };
  return { status: response.status, upid: body.data ?? '' };
}

describe('simulator daemon model over HTTP (SPEC 28)', () => {
  let sim: TestSim | undefined;

  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('is on by default in startSimulator (3 workers per daemon), and off in startTestSim at timeScale 1 unless asked', async () => {
    const plain = await startSimulator({ tokens: [TOKEN], nodes: NODES, vms: 0, timeScale: 0.01 });
    try {
      await fetch(`${plain.url}/api2/json/version`, { headers: AUTH });
      const seen = plain.sim.daemons.counters();
      expect([seen.proxyWorkers, seen.daemonWorkers]).to.deep.equal([3, 3]);
      expect(seen.nodes[N1]?.pveproxy.served).to.equal(1);
    } finally {
      await plain.close();
    }
    sim = await startTestSim();
    await sim.data('GET', '/version');
    const off = await capacity(sim);
    expect([off.proxyWorkers, off.daemonWorkers]).to.deep.equal([0, 0]);
    expect(off.nodes[N1]?.pveproxy.served).to.equal(0);
  });

  it("gives each node a URL of its own, listed at /_sim/nodes; the main URL is the first node's", async () => {
    sim = await startTestSim({ proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 0 });
    expect(Object.keys(sim.nodeUrls)).to.deep.equal(NODES);
    expect(sim.nodeUrls[N1]).to.equal(sim.url);
    expect(sim.nodeUrls[N2]).to.match(/^http:\/\/127\.0\.0\.1:\d+$/).and.not.equal(sim.url);
    expect(await sim.control('GET', 'nodes')).to.deep.equal({ entryNode: N1, nodeUrls: sim.nodeUrls });
  });

  it("enters the node whose URL was used: a call sent to the second node's URL holds that node's pveproxy only", async () => {
    sim = await startTestSim({ proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 0 });
    expect((await apiAt(sim.nodeUrls[N2] ?? '', 'GET', '/version')).status).to.equal(200);
    let seen = await capacity(sim);
    expect([seen.nodes[N1]?.pveproxy.served, seen.nodes[N2]?.pveproxy.served]).to.deep.equal([0, 1]);

    // A protected call for the first node sent to the second: proxied, then the first node's pvedaemon.
    await sim.control('DELETE', 'capacity');
    expect((await apiAt(sim.nodeUrls[N2] ?? '', 'GET', `/nodes/${N1}/qemu`)).status).to.equal(200);
    seen = await capacity(sim);
    const served = (node: string): number[] => [seen.nodes[node]?.pveproxy.served ?? -1, seen.nodes[node]?.pvedaemon.served ?? -1];
    expect({ [N1]: served(N1), [N2]: served(N2) }).to.deep.equal({ [N1]: [1, 1], [N2]: [1, 0] });
  });

  it("answers nothing on an offline node's own URL (the connection drops), while the main URL answers 595 for that node", async () => {
    sim = await startTestSim({ proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 0 });
    await sim.faults({ offlineNodes: [N2] });
    const own = sim.nodeUrls[N2] ?? '';
    const failed = await apiAt(own, 'GET', '/version').then(
      (r) => `answered ${r.status}`,
      (err: unknown) => (err instanceof Error ? err.name : String(err)),
    );
    expect(failed).to.equal('TypeError');
    expect((await apiAt(sim.url, 'GET', `/nodes/${N2}/status`)).status).to.equal(595);
    expect((await fetch(`${own}/_sim/nodes`)).status).to.equal(200);
    await sim.faults({});
    expect((await apiAt(own, 'GET', '/version')).status).to.equal(200);
  });

  it('holds the pvedaemon worker 3 s x timeScale for an agent call while the agent is not up', async () => {
    sim = await startTestSim({ timeScale: 0.01, proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 0 });
    await sim.control('POST', 'vms', { node: N1, vmid: 4242, config: { name: 'booting', agent: '1' }, status: 'running', startedSecondsAgo: 0 });
    const answer = await sim.api('GET', `/nodes/${N1}/qemu/4242/agent/network-get-interfaces`);
    expect([answer.status, answer.reason]).to.deep.equal([500, 'QEMU guest agent is not running']);
    const daemon = (await capacity(sim)).nodes[N1]?.pvedaemon;
    expect(daemon?.served).to.equal(1);
    expect(daemon?.busyWorkerSeconds).to.be.closeTo(0.03, 1e-9);
    expect(daemon?.timeline.buckets.some((b) => b.busy === 1)).to.equal(true);

    // With the agent switched off there is no socket to wait on: no hold.
    await sim.control('DELETE', 'capacity');
    await sim.control('POST', 'vms', { node: N1, vmid: 4243, config: { name: 'no-agent', agent: '0' }, status: 'running', startedSecondsAgo: 0 });
    await sim.api('GET', `/nodes/${N1}/qemu/4243/agent/network-get-interfaces`);
    expect((await capacity(sim)).nodes[N1]?.pvedaemon.busyWorkerSeconds).to.equal(0);
  });

  it('answers 596 `Connection timed out` to calls not answered 30 s x timeScale after they were proxied to pvedaemon, and counts them', async () => {
    sim = await startTestSim({ timeScale: 0.01, proxyWorkers: 3, daemonWorkers: 1, requestCostMs: 0, requestCostPerKibMs: 0 });
    await sim.control('POST', 'vms', { node: N1, vmid: 4242, config: { name: 'booting', agent: '1' }, status: 'running', startedSecondsAgo: 0 });
    // Each holds the one worker 30 ms: of 20 sent at once, the tenth is answered 300 ms after it came, too late
    // (it ran: the wait and the run both count), and those behind it never get the worker in time.
    const running = sim;
    const answers = await Promise.all(Array.from({ length: 20 }, () => running.api('GET', `/nodes/${N1}/qemu/4242/agent/network-get-interfaces`)));
    const timedOut = answers.filter((a) => a.status === 596);
    expect(timedOut.length).to.be.at.least(1);
    expect(timedOut[0]?.reason).to.equal('Connection timed out');
    expect(answers.filter((a) => a.status !== 596).every((a) => a.reason === 'QEMU guest agent is not running')).to.equal(true);
    const daemon = (await capacity(sim)).nodes[N1]?.pvedaemon;
    expect(daemon?.timedOut596).to.equal(timedOut.length);
    // Served: every call that ran, the ones answered 596 after running too late included.
    expect(daemon?.served).to.be.within(20 - timedOut.length, 20);
    expect(daemon?.longestWaitMs).to.be.below(300);
    expect(daemon?.busyWorkerSeconds).to.be.closeTo((daemon?.served ?? 0) * 0.03, 1e-9);
    expect((await capacity(sim)).nodes[N1]?.pveproxy.timedOut596).to.equal(0);
  });

  it("charges an upload for another node to the entry node's pvedaemon, and runs its task there", async () => {
    sim = await startTestSim({ timeScale: 0.01, proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 0 });
    const remote = await uploadAt(sim.url, N2);
    expect(remote.status).to.equal(200);
    expect(remote.upid).to.match(new RegExp(`^UPID:${N1}:`));
    let seen = await capacity(sim);
    // Two SSH commands, 0.5 s each, x 0.01.
    expect(seen.nodes[N1]?.pvedaemon.busyWorkerSeconds).to.be.closeTo(0.01, 1e-9);
    expect(seen.nodes[N2]?.pvedaemon.served).to.equal(0);

    // Sent to the node's own URL: no SSH, and the task runs on that node.
    await sim.control('DELETE', 'capacity');
    const local = await uploadAt(sim.nodeUrls[N2] ?? '', N2);
    expect(local.upid).to.match(new RegExp(`^UPID:${N2}:`));
    seen = await capacity(sim);
    expect(seen.nodes[N2]?.pvedaemon).to.include({ served: 1, busyWorkerSeconds: 0 });
    expect(seen.nodes[N1]?.pvedaemon.served).to.equal(0);
  });

  it('charges /cluster/resources by the size of its answer, and DELETE /_sim/capacity clears', async () => {
    sim = await startTestSim({ vms: 2000, proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 1 });
    const answer = await sim.api('GET', '/cluster/resources', { type: 'vm' });
    const proxy = (await capacity(sim)).nodes[N1]?.pveproxy;
    expect((proxy?.busyWorkerSeconds ?? 0) * 1000).to.be.closeTo(Buffer.byteLength(answer.body) / 1024, 0.01);
    const cleared = (await sim.control('DELETE', 'capacity')) as Capacity;
    expect(cleared.nodes[N1]?.pveproxy).to.include({ served: 0, busyWorkerSeconds: 0, peakInProgress: 0 });
  });

  it("charges a node's full VM listing once more per VM running on the node (qemu-server vmstatus asks each one's QMP)", async () => {
    sim = await startTestSim({ vms: 20, proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 10, requestCostPerKibMs: 0 });
    const listed = await sim.data<{ status: string }[]>('GET', `/nodes/${N1}/qemu`);
    const running = listed.filter((vm) => vm.status === 'running').length;
    expect(running).to.be.at.least(2);
    await sim.control('DELETE', 'capacity');
    await sim.api('GET', `/nodes/${N1}/qemu`, { full: 1 });
    expect(((await capacity(sim)).nodes[N1]?.pvedaemon.busyWorkerSeconds ?? 0) * 1000).to.be.closeTo(10 * (1 + running), 0.01);
  });
});
