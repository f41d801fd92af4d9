// SPEC 28: GET /cluster/status as the simulator answers it (pve-manager
// API2/Cluster.pm get_status), `local: 1` on the node whose listener the
// request entered; and the worker's client, which asks it before its first
// upload, keeping an entry node's pvedaemon to proxmox.daemonSlotsPerNode
// while uploads for another node run there.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { keys } from '../../src/redis-keys.js';
import type { PoolCounters } from '../../src/sim/worker-pool.js';
import { workerProxmoxApi } from '../../src/worker/proxmox-api.js';
import type { WorkerProxmoxApi } from '../../src/worker/proxmox-api.js';
import { REDIS_URL, uniquePrefix } from '../support/redis.js';
import { AUTH, NODES, TOKEN, startTestSim, type TestSim } from './sim-helpers.js';

const [N1, N2] = NODES as [string, string];

async function statusAt(base: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${base}/api2/json/cluster/status`, { headers: AUTH });
  expect(response.status).to.equal(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data;
}

describe('GET /cluster/status in the simulator (SPEC 28)', () => {
  let sim: TestSim | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('answers the cluster entry and each node with the fields Cluster.pm gives, local: 1 on the node whose URL was used', async () => {
    sim = await startTestSim();
    const main = await statusAt(sim.url);
    expect(main[0]).to.deep.equal({ type: 'cluster', id: 'cluster', nodes: 2, version: 2, name: 'pv1', quorate: 1 });
    expect(main.slice(1)).to.deep.equal([
      { type: 'node', id: `node/${N1}`, name: N1, nodeid: 1, local: 1, online: 1, ip: '192.0.2.1', level: '' },
      { type: 'node', id: `node/${N2}`, name: N2, nodeid: 2, local: 0, online: 1, ip: '192.0.2.2', level: '' },
    ]);
    const second = await statusAt(sim.nodeUrls[N2] ?? '');
    expect(second.filter((e) => e.local === 1).map((e) => e.name)).to.deep.equal([N2]);
  });

  it('marks an offline node online: 0 and runs in the entry node\'s pvedaemon (protected, no proxyto)', async () => {
    sim = await startTestSim({ proxyWorkers: 3, daemonWorkers: 3, requestCostMs: 0, requestCostPerKibMs: 0 });
    await sim.faults({ offlineNodes: [N2] });
    const entries = await statusAt(sim.url);
    expect(entries.find((e) => e.name === N2)).to.include({ online: 0, local: 0, level: '' });
    const capacity = (await sim.control('GET', 'capacity')) as { nodes: Record<string, { pvedaemon: PoolCounters }> };
    expect([capacity.nodes[N1]?.pvedaemon.served, capacity.nodes[N2]?.pvedaemon.served]).to.deep.equal([1, 0]);
  });
});

describe('the worker client counts uploads against the node they enter from the first one (SPEC 28)', function () {
  this.timeout(60_000);
  let sim: TestSim | undefined;
  let made: WorkerProxmoxApi | undefined;
  let dir: string;
  let prefix: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'entry-node-'));
    prefix = uniquePrefix('entry-node');
  });

  afterEach(async () => {
    await made?.close();
    made = undefined;
    await sim?.close();
    sim = undefined;
    rmSync(dir, { recursive: true, force: true });
    const admin = new Redis(REDIS_URL);
    await admin.del(keys.daemonSlots(prefix, N1), keys.daemonSlots(prefix, N2));
    admin.disconnect();
  });

  it(`holds at most 2 of ${N1}'s 3 pvedaemon workers while uploads for ${N2} entering ${N1} meet ${N1}'s own protected calls, in a cold burst`, async () => {
    // Every handler holds its worker 200 ms; an upload for another node 200 ms more for its SSH steps.
    sim = await startTestSim({ proxyWorkers: 3, daemonWorkers: 3, timeScale: 0.2, requestCostMs: 1_000, requestCostPerKibMs: 0 });
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const config = loadConfig({
      env: { REDIS_URL },
      overrides: {
        redis: { prefix },
        proxmox: {
          tokenFile,
          maxRequestsPerSecond: 0,
          nodes: [
            { name: N1, template: 9001, isoStorage: 'proxy-seeds' },
            { name: N2, template: 9002, isoStorage: 'proxy-seeds' },
          ],
        },
      },
    });
    made = workerProxmoxApi(config, sim.url, silentLogger(), createMetrics());
    const api = made.api;
    const seed = (i: number): { size: number; open: () => Readable } => ({ size: 2048, open: () => Readable.from([Buffer.alloc(2048, i)]) });
    const uploads = Array.from({ length: 4 }, (_, i) => api.upload(N2, 'proxy-seeds', `burst-${i}.iso`, seed(i)));
    const own = Array.from({ length: 4 }, () => api.storages(N1));
    const upids = await Promise.all(uploads);
    await Promise.all(own);
    expect(upids.every((upid) => upid.startsWith(`UPID:${N1}:`)), 'every upload ran on the entry node').to.equal(true);
    const capacity = (await sim.control('GET', 'capacity')) as { nodes: Record<string, { pvedaemon: PoolCounters }> };
    expect(capacity.nodes[N1]?.pvedaemon.peakInProgress).to.equal(2);
  });
});
