// The provider's own create and delete (SPEC 13, 15) against the simulator
// over HTTP, and over HTTPS verified with a CA file made here with openssl
// (SPEC 8, 18). Real time, scaled down 100 times; real polling; the
// simulator's daemon model on at its defaults (SPEC 28).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { createProvider } from '../../src/provider/provider.js';
import type { Provider } from '../../src/provider/types.js';
import { stateView } from '../../src/sim/control.js';
import { guestAddress, startSimulator, type RunningSimulator } from '../../src/sim/index.js';
import { TOKEN } from './sim-helpers.js';

interface SimState {
  vms: { vmid: number; node: string; origin: string; config: Record<string, string | number> }[];
  nodes: { node: string; storages: { storage: string; volumes: { volid: string }[] }[] }[];
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, and a server certificate for 127.0.0.1 signed by it. */
function makeCa(dir: string): { caFile: string; certFile: string; keyFile: string } {
  openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=sim test CA');
  openssl(dir, 'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=pv1-1');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(dir, 'x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
  return { caFile: join(dir, 'ca.pem'), certFile: join(dir, 'server.pem'), keyFile: join(dir, 'server.key') };
}

function providerFor(baseUrl: string, tokenFile: string, caFile?: string): Provider {
  const config = loadConfig({
    env: {},
    overrides: {
      proxmox: { tokenFile, caFile: caFile ?? '', nodes: [{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' }] },
      budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 },
    },
  });
  return createProvider({ api: createHttpApi({ baseUrl, tokenFile, caFile }), config, logger: silentLogger() });
}

async function stateOverHttp(sim: RunningSimulator): Promise<SimState> {
  return (await (await fetch(`${sim.url}/_sim/state`)).json()) as SimState;
}

/** The same view as GET /_sim/state, read in-process (node's fetch cannot be given a CA file). */
function stateInProcess(sim: RunningSimulator): SimState {
  sim.sim.settle();
  return JSON.parse(JSON.stringify(stateView(sim.sim))) as SimState;
}

/** The daemon model was on at its defaults and the create went through it: pvedaemon did the protected calls, nothing 596'd (SPEC 28). */
function expectDaemonModelUsed(sim: RunningSimulator): void {
  const seen = sim.sim.daemons.counters();
  expect([seen.proxyWorkers, seen.daemonWorkers]).to.deep.equal([3, 3]);
  const daemon = seen.nodes['pv1-1']?.pvedaemon;
  expect(daemon?.served).to.be.above(0);
  expect(daemon?.busyWorkerSeconds).to.be.above(0);
  const answered596 = Object.values(seen.nodes).reduce((sum, n) => sum + n.pveproxy.timedOut596 + n.pvedaemon.timedOut596, 0);
  expect(answered596).to.equal(0);
}

async function createThenDelete(provider: Provider, stateRead: () => Promise<SimState>): Promise<void> {
  const ctx = { signal: new AbortController().signal };
  const uid = '3f1c2a9e-6b7d-4e58-9a10-2c4d5e6f7a80';
  const created = await provider.create(
    { name: 'e2e-one', uid, cores: 2, memoryMiB: 2048, diskGiB: 10, userData: '#cloud-config\n', waitForAddress: true },
    ctx,
  );
  expect(created).to.include({ node: 'pv1-1', state: 'Running', uid, address: guestAddress(created.vmid) });
  const state = await stateRead();
  const vm = state.vms.find((v) => v.config.name === 'e2e-one');
  expect(vm?.origin).to.equal('full');
  expect(vm?.config).to.include({ boot: 'order=scsi0;ide2', cores: 2, memory: '2048', agent: '1' });
  expect(String(vm?.config.tags).split(';')).to.include.members(['debian', 'pve_provisioner']);
  expect(String(vm?.config.scsi0)).to.match(/size=10G$/);
  expect(String(vm?.config.ide2)).to.match(/^proxy-seeds:iso\/e2e-one-seed\.iso,media=cdrom/);
  expect(String(vm?.config.description)).to.include(`uid: ${uid}`);
  const seeds = (s: SimState) => s.nodes.flatMap((n) => n.storages.filter((x) => x.storage === 'proxy-seeds').flatMap((x) => x.volumes.map((v) => v.volid)));
  expect(seeds(state)).to.deep.equal(['proxy-seeds:iso/e2e-one-seed.iso']);

  expect(await provider.get({ name: 'e2e-one', uid }, ctx)).to.include({ state: 'Running', vmid: created.vmid });
  const deleted = await provider.delete({ name: 'e2e-one', uid }, ctx);
  expect(deleted).to.include({ deleted: true, vmid: created.vmid });
  expect(deleted.seedsDeleted).to.be.at.least(1);
  const after = await stateRead();
  expect(after.vms.some((v) => v.config.name === 'e2e-one')).to.equal(false);
  expect(seeds(after)).to.deep.equal([]);
  expect(await provider.get({ name: 'e2e-one', uid }, ctx)).to.include({ state: 'NotFound' });
}

describe('provider create and delete against the simulator, its daemon model on at the defaults (SPEC 8, 13, 15, 28)', function () {
  this.timeout(60_000);
  let dir: string;
  let tokenFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-e2e-'));
    tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const simOptions = { tokens: [TOKEN], nodes: ['pv1-1', 'pv1-2'], vms: 5, timeScale: 0.01 };

  it('over HTTP', async () => {
    const sim = await startSimulator(simOptions);
    try {
      await createThenDelete(providerFor(sim.url, tokenFile), () => stateOverHttp(sim));
      expectDaemonModelUsed(sim);
    } finally {
      await sim.close();
    }
  });

  it('over HTTPS, verified against a CA file, and refused without it', async () => {
    const tls = makeCa(dir);
    const sim = await startSimulator({ ...simOptions, tlsCert: tls.certFile, tlsKey: tls.keyFile });
    try {
      expect(sim.url).to.match(/^https:/);
      let refused: unknown;
      await createHttpApi({ baseUrl: sim.url, tokenFile }).version().catch((err: unknown) => (refused = err));
      expect(refused).to.be.instanceOf(Error);
      await createThenDelete(providerFor(sim.url, tokenFile, tls.caFile), () => Promise.resolve(stateInProcess(sim)));
      expectDaemonModelUsed(sim);
    } finally {
      await sim.close();
    }
  });
});
