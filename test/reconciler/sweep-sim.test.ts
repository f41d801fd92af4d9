// SPEC 5, 8: sweeps against the simulator over HTTP, with VMs the provider
// made itself, then the jobs the sweep enqueued carried out by the
// provider: the orphan goes, the wanted VM and the simulator's own VMs
// stay; a seed left on the wrong node goes, the one beside the VM stays.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { loadConfig, type Config } from '../../src/config/index.js';
import { TransientError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { createProvider } from '../../src/provider/provider.js';
import type { CreateResult, OperationContext, Provider } from '../../src/provider/types.js';
import { validateJobData, limitsFromConfig } from '../../jobs/schema.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { keys } from '../../src/queue/keys.js';
import { createReconcileRunner } from '../../src/reconciler/run.js';
import type { SweepReport } from '../../src/reconciler/report.js';
import { startSimulator } from '../../src/sim/index.js';
import { stateView } from '../../src/sim/control.js';
import { TOKEN } from '../sim/sim-helpers.js';

interface SimState {
  vms: { vmid: number; node: string; config: Record<string, string | number> }[];
  nodes: { node: string; storages: { storage: string; volumes: { volid: string }[] }[] }[];
}

interface SimWorld {
  api: ProxmoxApi;
  config: Config;
  provider: Provider;
  registry: DesiredStateRegistry;
  redis: Redis;
  prefix: string;
  queues: Queues;
  ctx: OperationContext;
  /** Records a present entry as the producer would. */
  record(name: string, uid: string): Promise<void>;
  make(name: string, uid: string, node?: string): Promise<CreateResult>;
  view(): SimState;
  sweep(): Promise<SweepReport>;
}

/** Runs op again while it fails Transient, as a worker's retries would, for up to 10 s. */
async function retriedWhileTransient<T>(op: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (!(err instanceof TransientError) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The simulator's nodes; node i holds template 9001 + i (a VMID is unique in a cluster, SPEC 23). */
const SIM_NODES = ['pv1-1', 'pv1-2'];

/** A simulator with two nodes (`foreignVms` of its own), Redis under a fresh prefix, and the provider over HTTP. */
async function withSimWorld(foreignVms: number, configured: string[], body: (w: SimWorld) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'recon-sim-'));
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const sim = await startSimulator({ tokens: [TOKEN], nodes: SIM_NODES, vms: foreignVms, timeScale: 0.01 });
  const prefix = `pvep-test-recon-sim-${randomBytes(4).toString('hex')}`;
  const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const config = loadConfig({
    env: {},
    overrides: {
      redis: { prefix },
      proxmox: { tokenFile, caFile: '', nodes: configured.map((name) => ({ name, template: 9001 + SIM_NODES.indexOf(name), isoStorage: 'proxy-seeds' })) },
      budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30 },
    },
  });
  const queues = createQueues(redis, prefix, config.jobs);
  try {
    const api = createHttpApi({ baseUrl: sim.url, tokenFile });
    const provider = createProvider({ api, config, logger: silentLogger() });
    const registry = new DesiredStateRegistry(redis, prefix, 3600);
    const ctx = { signal: new AbortController().signal };
    const limits = limitsFromConfig(config);
    const run = createReconcileRunner({ config, redis, provider, queues, registry, locks: new NameLocks(redis, prefix), now: () => new Date(Date.now() + 3600_000) });
    await body({
      api,
      config,
      provider,
      registry,
      redis,
      prefix,
      queues,
      ctx,
      async record(name, uid) {
        const spec = validateJobData('create', { name, uid, waitForAddress: false }, limits);
        if (!spec.ok) throw new Error('bad spec');
        await registry.recordPresent(name, uid, { ...spec.value });
      },
      make: (name, uid, node) => provider.create({ name, uid, ...(node === undefined ? {} : { node }), cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false }, ctx),
      view: () => JSON.parse(JSON.stringify(stateView(sim.sim))) as SimState,
      async sweep() {
        const report = await run({ dryRun: false }, ctx);
        if ('skipped' in report) throw new Error('skipped');
        return report;
      },
    });
  } finally {
    await queues.vm.obliterate({ force: true }).catch(() => undefined);
    await queues.close();
    const left = await redis.keys(`${prefix}:*`);
    if (left.length > 0) await redis.del(...left);
    await redis.quit();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function seedsIn(state: SimState): string[] {
  return state.nodes.flatMap((n) => n.storages.flatMap((st) => st.volumes.filter((v) => v.volid.endsWith('-seed.iso')).map((v) => `${n.node} ${v.volid}`)));
}

describe('reconcile sweep against the simulator (SPEC 5, 8, real Redis)', function () {
  this.timeout(60_000);

  it('finds the orphan and the missing VM among the simulator population, and the delete job removes only the orphan', async () => {
    await withSimWorld(5, ['pv1-1'], async (w) => {
      await w.record('keep', 'uid-keep');
      const kept = await w.make('keep', 'uid-keep');
      await w.record('orphan', 'uid-orphan');
      const orphan = await w.make('orphan', 'uid-orphan');
      await w.registry.recordAbsent('orphan', undefined);
      await w.redis.del(keys.desired(w.prefix, 'orphan')); // its tombstone expired; the VM stayed
      await w.record('lost', 'uid-lost'); // accepted, but its job was lost
      const before = w.view();

      const report = await w.sweep();

      const jobs = (await w.queues.vm.getJobs(['waiting'])).map((j) => [j.name, (j.data as { name: string; uid: string }).name, (j.data as { uid: string }).uid]).sort();
      expect(jobs).to.deep.equal([
        ['create', 'lost', 'uid-lost'],
        ['delete', 'orphan', 'uid-orphan'],
      ]);
      expect(report.ours).to.equal(2);

      // The delete job's work, as the worker would do it: retried while Transient (a clone
      // that just ended is `unknown` in /cluster/resources until pvestatd's next cycle, SPEC 23).
      await retriedWhileTransient(() => w.provider.delete({ name: 'orphan', uid: 'uid-orphan' }, w.ctx));
      const after = w.view();
      expect(after.vms.map((v) => v.vmid).sort()).to.deep.equal(before.vms.map((v) => v.vmid).filter((id) => id !== orphan.vmid).sort());
      expect(after.vms.some((v) => v.vmid === kept.vmid)).to.equal(true);
    });
  });

  it('deletes the seed a stopped delete left on one node once the name was made again on another, and keeps the new one (SPEC 5, 22)', async () => {
    await withSimWorld(0, ['pv1-1', 'pv1-2'], async (w) => {
      // The worker running the delete is killed after the destroy, before the seed delete.
      const killedAtSeed = createProvider({ api: { ...w.api, deleteVolume: () => Promise.reject(new Error('SIGKILL')) }, config: w.config, logger: silentLogger() });
      await w.record('web', 'uid-1');
      await w.make('web', 'uid-1', 'pv1-1');
      await w.registry.recordAbsent('web', undefined);
      let killed: unknown;
      await killedAtSeed.delete({ name: 'web' }, w.ctx).catch((err: unknown) => (killed = err));
      expect(String(killed)).to.contain('SIGKILL');
      // The delete is superseded by a create, placed on the other node.
      await w.record('web', 'uid-2');
      const second = await w.make('web', 'uid-2', 'pv1-2');
      expect(seedsIn(w.view())).to.deep.equal(['pv1-1 proxy-seeds:iso/web-seed.iso', 'pv1-2 proxy-seeds:iso/web-seed.iso']);

      const report = await w.sweep();

      expect(report.seeds.deleted).to.deep.equal([{ name: 'web', node: 'pv1-1', volid: 'proxy-seeds:iso/web-seed.iso', vmNode: 'pv1-2' }]);
      expect(seedsIn(w.view())).to.deep.equal(['pv1-2 proxy-seeds:iso/web-seed.iso']);
      expect(w.view().vms.filter((v) => v.config.name === 'web').map((v) => v.vmid)).to.deep.equal([second.vmid]);
      expect(await w.queues.vm.getJobs(['waiting', 'delayed'])).to.deep.equal([]);
    });
  });
});
