// One webhook test's world (SPEC 27): the simulator, a secret file and a
// Proxmox token file, a receiver on a port of its own (not yet listening),
// and the harness whose workers run the real provider against the
// simulator with webhooks.url pointing at the receiver.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeConfig } from '../../src/config/types.js';
import type { Logger } from '../../src/log.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { createProvider } from '../../src/provider/provider.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import type { WorkerService, WorkerServiceOptions } from '../../src/worker/service.js';
import { silentLogger } from '../../src/log.js';
import { freePort } from '../support/free-port.js';
import { createHarness, type Harness } from '../support/harness.js';
import { webhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

export const TOKEN = 'root@pam!provisioner=5e0b2c1d-webhook-test';
export const SECRET = 'whsec-7f3a9c2e41b84d0c9e5a6b1f2d3c4e5f';
const BUDGETS = { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 };

/** proxmox.nodes with pve2's storage misspelt: a create there fails Permanent at once. */
export const BAD_STORAGE_NODES: NodeConfig[] = [
  { name: 'pve1', template: 9001, isoStorage: 'proxy-seeds' },
  { name: 'pve2', template: 9002, isoStorage: 'proxy-seeds', storage: 'local-lvn' },
];

export interface WebhookWorld {
  sim: RunningSimulator;
  receiver: WebhookReceiver;
  harness: Harness;
  dir: string;
  tokenFile: string;
  secretFile: string;
  /** The harness config's overrides, for a child worker on the same world. */
  overrides: Record<string, unknown>;
  startWorker(logger?: Logger, extra?: Partial<WorkerServiceOptions>): Promise<WorkerService>;
  close(): Promise<void>;
}

export async function webhookWorld(what: string, webhooks: Record<string, unknown> = {}): Promise<WebhookWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'pvep-webhooks-'));
  const tokenFile = join(dir, 'token');
  const secretFile = join(dir, 'webhook-secret');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
  const sim = await startSimulator({ tokens: [TOKEN], nodes: ['pve1', 'pve2'], vms: 2, timeScale: 0.01 });
  const receiver = webhookReceiver(await freePort(), SECRET);
  const overrides = {
    proxmox: { url: sim.url, tokenFile, nodes: BAD_STORAGE_NODES },
    budgets: BUDGETS,
    webhooks: { url: receiver.url, secretFile, attempts: 12, backoffMs: 100, timeoutMs: 5_000, ...webhooks },
  };
  const harness = createHarness(what, { config: overrides });
  return {
    sim,
    receiver,
    harness,
    dir,
    tokenFile,
    secretFile,
    overrides,
    startWorker: (logger = silentLogger(), extra = {}) =>
      harness.startWorker({ logger, provider: createProvider({ api: createHttpApi({ baseUrl: sim.url, tokenFile }), config: harness.config, logger }), ...extra }),
    async close() {
      await harness.close();
      await receiver.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
