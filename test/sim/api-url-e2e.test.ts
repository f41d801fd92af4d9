// proxmox.nodes[i].apiUrl end to end (SPEC 28): every node's calls go to
// that node's own port of the simulator (RunningSimulator.nodeUrls). A
// nodeUrls missing a node, or giving pv1-2 the entry node's URL, fails
// here, so the routing cannot pass by every call landing on proxmox.url.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createProvider } from '../../src/provider/provider.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { proxmoxApiFromConfig } from '../../src/worker/proxmox-api.js';
import { TOKEN } from './sim-helpers.js';

describe('proxmox.nodes[i].apiUrl against the simulator, one port per node (SPEC 28)', function () {
  this.timeout(60_000);
  let dir: string;
  let sim: RunningSimulator;
  let nodeUrls: Record<string, string> = {};
  let running = false;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sim-api-url-'));
    sim = await startSimulator({ tokens: [TOKEN], nodes: ['pv1-1', 'pv1-2'], vms: 0, timeScale: 0.01 });
    running = true;
    nodeUrls = sim.nodeUrls;
    expect(Object.keys(nodeUrls).sort(), 'RunningSimulator.nodeUrls').to.deep.equal(['pv1-1', 'pv1-2']);
    expect(nodeUrls['pv1-2'], "pv1-2's own URL").to.match(/^http:\/\/127\.0\.0\.1:\d+$/).and.not.equal(sim.url);
  });
  afterEach(async () => {
    if (running) await sim.close();
    running = false;
    rmSync(dir, { recursive: true, force: true });
  });

  function provider() {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const config = loadConfig({
      env: {},
      overrides: {
        proxmox: {
          tokenFile,
          nodes: [
            { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds', apiUrl: nodeUrls['pv1-1'] },
            { name: 'pv1-2', template: 9002, isoStorage: 'proxy-seeds', apiUrl: nodeUrls['pv1-2'] },
          ],
        },
        // The first agent call at the simulated boot's scale (30 s x 0.01), as test/support/service-on-sim.ts does.
        budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 },
      },
    });
    return createProvider({ api: proxmoxApiFromConfig(config, sim.url), config, logger: silentLogger() });
  }

  it("health finds every node's apiUrl answering for the same cluster", async () => {
    const nodes = await provider().health({ signal: new AbortController().signal });
    expect(nodes.map((n) => [n.node, n.ok, n.reasons])).to.deep.equal([
      ['pv1-1', true, []],
      ['pv1-2', true, []],
    ]);
  });

  it("a create on pv1-2 uploads its seed through pv1-2's own port: the upload task runs on pv1-2", async () => {
    const created = await provider().create(
      { name: 'api-url-e2e', uid: '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a29', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, node: 'pv1-2' },
      { signal: new AbortController().signal },
    );
    expect(created).to.include({ node: 'pv1-2', state: 'Running' });
    const tasks = await fetch(`${nodeUrls['pv1-2'] ?? ''}/api2/json/nodes/pv1-2/tasks?typefilter=imgcopy`, { headers: { Authorization: `PVEAPIToken=${TOKEN}` } });
    const listed = (await tasks.json()) as { data: { node: string }[] };
    expect(listed.data.map((t) => t.node)).to.deep.equal(['pv1-2']);
  });
});
