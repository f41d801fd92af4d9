// A recording made against the simulator (SPEC 33): the provider's create
// and delete of one VM on pv1-1, every exchange written by the recorder
// (src/verify/record/), with the inventory read the way verify reads it.
// The recorder's tests use it for a recording whose secrets they know:
// the token's and a user-data text (verify's own create has no user-data).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/index.js';
import { silentLogger } from '../../../src/log.js';
import type { ProxmoxApi } from '../../../src/proxmox/api.js';
import { createHttpApi } from '../../../src/proxmox/http-api.js';
import { createProvider } from '../../../src/provider/provider.js';
import { startSimulator } from '../../../src/sim/index.js';
import type { HostInventory } from '../../../src/verify/types.js';
import { openRecorder, type RecordedStep } from '../../../src/verify/record/recorder.js';

const NODE = 'pv1-1';
const TEMPLATE = 9001;

export interface SimRunSecrets {
  /** The token's secret the client sent with every request. */
  tokenSecret: string;
  /** The user-data text the seed ISO carried. */
  userData: string;
}

async function inventoryOf(api: ProxmoxApi): Promise<HostInventory> {
  const version = await api.version();
  const nodes = (await api.nodes()).map((n) => ({ node: n.node, status: n.status }));
  const storages = (await api.storages(NODE)).map((s) => ({ node: NODE, storage: s.storage, type: s.type, content: s.content, active: s.active, enabled: s.enabled, shared: s.shared }));
  const templates = [{ node: NODE, vmid: TEMPLATE, config: await api.getConfig(NODE, TEMPLATE) }];
  return { version, nodes, storages, templates, bridges: [{ node: NODE, iface: 'vmbr0', vlanAware: false }] };
}

async function timed(steps: RecordedStep[], name: string, run: () => Promise<unknown>): Promise<void> {
  const start = Date.now();
  await run();
  steps.push({ name, node: NODE, ms: Date.now() - start });
}

/** Records the provider's create and delete against a fresh simulator into `dir` (new or empty); resolves the secrets it used. */
export async function recordSimRun(dir: string): Promise<SimRunSecrets> {
  const secrets = { tokenSecret: randomUUID(), userData: `#cloud-config\nchpasswd: { list: "root:user-data-${randomUUID()}" }\n` };
  const token = `root@pam!provisioner=${secrets.tokenSecret}`;
  const sim = await startSimulator({ tokens: [token], port: 0, nodes: [NODE], vms: 0, timeScale: 0.01 });
  const work = mkdtempSync(join(tmpdir(), 'record-sim-run-'));
  try {
    const tokenFile = join(work, 'token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const recorder = await openRecorder(dir);
    const api = createHttpApi({ baseUrl: sim.url, tokenFile, onExchange: recorder.onExchange });
    const config = loadConfig({
      env: {},
      overrides: {
        proxmox: { tokenFile, nodes: [{ name: NODE, template: TEMPLATE, isoStorage: 'proxy-seeds' }] },
        budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 },
      },
    });
    const provider = createProvider({ api, config, logger: silentLogger() });
    const ctx = { signal: new AbortController().signal };
    const vm = { name: 'verify-recording', uid: randomUUID() };
    const steps: RecordedStep[] = [];
    recorder.step('inventory', NODE);
    let inventory: HostInventory | undefined;
    await timed(steps, 'inventory', async () => (inventory = await inventoryOf(api)));
    recorder.step('create', NODE);
    await timed(steps, 'create', () => provider.create({ ...vm, cores: 2, memoryMiB: 2048, diskGiB: 10, userData: secrets.userData, waitForAddress: true }, ctx));
    recorder.step('delete', NODE);
    await timed(steps, 'delete', () => provider.delete(vm, ctx));
    await recorder.finish(inventory as HostInventory, steps);
    return secrets;
  } finally {
    rmSync(work, { recursive: true, force: true });
    await sim.close();
  }
}
