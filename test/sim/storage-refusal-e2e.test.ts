// SPEC 28 end to end: the provider over HTTP against the simulator, whose
// storage.cfg disables the seed storage or keeps the clone storage off the
// node. The create fails at once, Permanent, naming the key and the node,
// and leaves no VM behind.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import type { NodeConfig } from '../../src/config/types.js';
import { PermanentError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { createProvider } from '../../src/provider/provider.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { rejection } from '../support/rejection.js';
import { TOKEN } from './sim-helpers.js';

describe('a storage disabled or not available on the node, against the simulator (SPEC 28)', function () {
  this.timeout(60_000);
  let dir: string;
  let tokenFile: string;
  let sim: RunningSimulator;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sim-storage-'));
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    sim = await startSimulator({ tokens: [TOKEN], nodes: ['pv1-1', 'pv1-2'], vms: 0, timeScale: 0.01 });
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function refusedCreate(second: Partial<NodeConfig>): Promise<string> {
    const config = loadConfig({
      env: {},
      overrides: {
        proxmox: {
          tokenFile,
          nodes: [
            { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' },
            { name: 'pv1-2', template: 9002, isoStorage: 'proxy-seeds', ...second },
          ],
        },
        budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30 },
      },
    });
    const provider = createProvider({ api: createHttpApi({ baseUrl: sim.url, tokenFile }), config, logger: silentLogger() });
    const spec = { name: 'e2e-storage', uid: '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a28', cores: 2, memoryMiB: 2048, diskGiB: 10, waitForAddress: true, node: 'pv1-2' };
    const err = await rejection(provider.create(spec, { signal: new AbortController().signal }));
    expect(err).to.be.instanceOf(PermanentError);
    return (err as PermanentError).reason;
  }

  const setStorage = async (body: unknown): Promise<void> => {
    const answer = await fetch(`${sim.url}/_sim/storages`, { method: 'POST', body: JSON.stringify(body) });
    expect(answer.status).to.equal(200);
  };

  it('a disabled seed storage fails the upload at once, naming proxmox.nodes[1].isoStorage and the node', async () => {
    await setStorage({ storage: 'proxy-seeds', disable: true });
    expect(await refusedCreate({})).to.equal(
      "storage 'proxy-seeds' is disabled in Proxmox (storage.cfg), so node pv1-2 cannot use it: enable it, or fix proxmox.nodes[1].isoStorage",
    );
  });

  it('a clone storage whose nodes leave the node out fails before any clone, naming proxmox.nodes[1].storage and the node', async () => {
    await setStorage({ storage: 'vm-shared', nodes: ['pv1-1'] });
    expect(await refusedCreate({ storage: 'vm-shared' })).to.equal(
      "storage 'vm-shared' is not available on node pv1-2 (its nodes in storage.cfg leave pv1-2 out): add pv1-2 to the storage's nodes, or fix proxmox.nodes[1].storage",
    );
    const state = (await (await fetch(`${sim.url}/_sim/state`)).json()) as { vms: { vmid: number }[] };
    expect(state.vms.filter((vm) => vm.vmid < 9000)).to.deep.equal([]);
  });
});
