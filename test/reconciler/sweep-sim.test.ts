// SPEC 5, 8: one sweep against the simulator over HTTP, with VMs the
// provider made itself, then the delete job it enqueued carried out by the
// provider: the orphan goes, the wanted VM and the simulator's own VMs stay.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { createProvider } from '../../src/provider/provider.js';
import { validateJobData, limitsFromConfig } from '../../jobs/schema.js';
import { createQueues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { keys } from '../../src/queue/keys.js';
import { createReconcileRunner } from '../../src/reconciler/run.js';
import { startSimulator } from '../../src/sim/index.js';
import { stateView } from '../../src/sim/control.js';
import { TOKEN } from '../sim/sim-helpers.js';

interface SimState {
  vms: { vmid: number; config: Record<string, string | number> }[];
}

describe('reconcile sweep against the simulator (SPEC 5, 8, real Redis)', function () {
  this.timeout(60_000);

  it('finds the orphan and the missing VM among the simulator population, and the delete job removes only the orphan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recon-sim-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const sim = await startSimulator({ tokens: [TOKEN], nodes: ['pv1-1', 'pv1-2'], vms: 5, timeScale: 0.01 });
    const prefix = `pvep-test-recon-sim-${randomBytes(4).toString('hex')}`;
    const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    const config = loadConfig({
      env: {},
      overrides: {
        redis: { prefix },
        proxmox: { tokenFile, caFile: '', nodes: [{ name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' }] },
        budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30 },
      },
    });
    const queues = createQueues(redis, prefix, config.jobs);
    try {
      const provider = createProvider({ api: createHttpApi({ baseUrl: sim.url, tokenFile }), config, logger: silentLogger() });
      const registry = new DesiredStateRegistry(redis, prefix, 3600);
      const ctx = { signal: new AbortController().signal };
      const limits = limitsFromConfig(config);
      const record = async (name: string, uid: string): Promise<void> => {
        const spec = validateJobData('create', { name, uid, waitForAddress: false }, limits);
        if (!spec.ok) throw new Error('bad spec');
        await registry.recordPresent(name, uid, { ...spec.value });
      };
      const make = (name: string, uid: string) => provider.create({ name, uid, cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false }, ctx);

      await record('keep', 'uid-keep');
      const kept = await make('keep', 'uid-keep');
      await record('orphan', 'uid-orphan');
      const orphan = await make('orphan', 'uid-orphan');
      await registry.recordAbsent('orphan', undefined);
      await redis.del(keys.desired(prefix, 'orphan')); // its tombstone expired; the VM stayed
      await record('lost', 'uid-lost'); // accepted, but its job was lost
      const before = JSON.parse(JSON.stringify(stateView(sim.sim))) as SimState;

      const run = createReconcileRunner({
        config,
        redis,
        provider,
        vmQueue: queues.vm,
        registry,
        locks: new NameLocks(redis, prefix),
        now: () => new Date(Date.now() + 3600_000),
      });
      const report = await run({ dryRun: false }, ctx);
      if ('skipped' in report) throw new Error('skipped');

      const jobs = (await queues.vm.getJobs(['waiting'])).map((j) => [j.name, (j.data as { name: string; uid: string }).name, (j.data as { uid: string }).uid]).sort();
      expect(jobs).to.deep.equal([
        ['create', 'lost', 'uid-lost'],
        ['delete', 'orphan', 'uid-orphan'],
      ]);
      expect(report.ours).to.equal(2);

      // The delete job's work, as the worker would do it.
      await provider.delete({ name: 'orphan', uid: 'uid-orphan' }, ctx);
      const after = JSON.parse(JSON.stringify(stateView(sim.sim))) as SimState;
      expect(after.vms.map((v) => v.vmid).sort()).to.deep.equal(before.vms.map((v) => v.vmid).filter((id) => id !== orphan.vmid).sort());
      expect(after.vms.some((v) => v.vmid === kept.vmid)).to.equal(true);
    } finally {
      await queues.vm.obliterate({ force: true }).catch(() => undefined);
      await queues.close();
      const left = await redis.keys(`${prefix}:*`);
      if (left.length > 0) await redis.del(...left);
      await redis.quit();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('deletes the seed a stopped delete left on one node once the name was made again on another, and keeps the new one (SPEC 5, 22)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recon-sim-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const sim = await startSimulator({ tokens: [TOKEN], nodes: ['pv1-1', 'pv1-2'], vms: 0, timeScale: 0.01 });
    const prefix = `pvep-test-recon-sim-${randomBytes(4).toString('hex')}`;
    const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    const config = loadConfig({
      env: {},
      overrides: {
        redis: { prefix },
        proxmox: {
          tokenFile,
          caFile: '',
          nodes: [
            { name: 'pv1-1', template: 9001, isoStorage: 'proxy-seeds' },
            { name: 'pv1-2', template: 9001, isoStorage: 'proxy-seeds' },
          ],
        },
        budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30 },
      },
    });
    const queues = createQueues(redis, prefix, config.jobs);
    try {
      const api = createHttpApi({ baseUrl: sim.url, tokenFile });
      const provider = createProvider({ api, config, logger: silentLogger() });
      // The worker running the delete is killed after the destroy, before the seed delete.
      const killedAtSeed = createProvider({ api: { ...api, deleteVolume: () => Promise.reject(new Error('SIGKILL')) }, config, logger: silentLogger() });
      const registry = new DesiredStateRegistry(redis, prefix, 3600);
      const ctx = { signal: new AbortController().signal };
      const limits = limitsFromConfig(config);
      const spec = (uid: string): Record<string, unknown> => {
        const checked = validateJobData('create', { name: 'web', uid, waitForAddress: false }, limits);
        if (!checked.ok) throw new Error('bad spec');
        return { ...checked.value };
      };
      const make = (uid: string, node: string) => provider.create({ name: 'web', uid, node, cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false }, ctx);
      const view = (): SimState & { nodes: { node: string; storages: { storage: string; volumes: { volid: string }[] }[] }[] } => JSON.parse(JSON.stringify(stateView(sim.sim))) as never;
      const seedsOf = (): string[] =>
        view().nodes.flatMap((n) =>
          n.storages.flatMap((st) => st.volumes.filter((v) => v.volid.endsWith('-seed.iso')).map((v) => `${n.node} ${v.volid}`)),
        );

      await registry.recordPresent('web', 'uid-1', spec('uid-1'));
      await make('uid-1', 'pv1-1');
      await registry.recordAbsent('web', undefined);
      let killed: unknown;
      await killedAtSeed.delete({ name: 'web' }, ctx).catch((err: unknown) => (killed = err));
      expect(String(killed)).to.contain('SIGKILL');
      // The delete is superseded by a create, placed on the other node.
      await registry.recordPresent('web', 'uid-2', spec('uid-2'));
      const second = await make('uid-2', 'pv1-2');
      expect(seedsOf()).to.deep.equal(['pv1-1 proxy-seeds:iso/web-seed.iso', 'pv1-2 proxy-seeds:iso/web-seed.iso']);

      const run = createReconcileRunner({
        config,
        redis,
        provider,
        vmQueue: queues.vm,
        registry,
        locks: new NameLocks(redis, prefix),
        now: () => new Date(Date.now() + 3600_000),
      });
      const report = await run({ dryRun: false }, ctx);
      if ('skipped' in report) throw new Error('skipped');

      expect(report.seeds.deleted).to.deep.equal([{ name: 'web', node: 'pv1-1', volid: 'proxy-seeds:iso/web-seed.iso', vmNode: 'pv1-2' }]);
      expect(seedsOf()).to.deep.equal(['pv1-2 proxy-seeds:iso/web-seed.iso']);
      expect(view().vms.filter((v) => v.config.name === 'web').map((v) => v.vmid)).to.deep.equal([second.vmid]);
      expect(await queues.vm.getJobs(['waiting', 'delayed'])).to.deep.equal([]);
    } finally {
      await queues.vm.obliterate({ force: true }).catch(() => undefined);
      await queues.close();
      const left = await redis.keys(`${prefix}:*`);
      if (left.length > 0) await redis.del(...left);
      await redis.quit();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
