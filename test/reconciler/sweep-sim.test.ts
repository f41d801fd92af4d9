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
import { PermanentError, TransientError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import type { ProxmoxApi } from '../../src/proxmox/api.js';
import { createHttpApi } from '../../src/proxmox/http-api.js';
import { createProvider } from '../../src/provider/provider.js';
import type { CreateResult, OperationContext, Provider } from '../../src/provider/types.js';
import { limitsFromConfig } from '../../src/job-table/schema.js';
import { createSpecFields } from '../../src/job-table/create.schema.js';
import { validateFields } from '../../src/job-table/fields.js';
import { ownJobId } from '../../src/job-table/job-ids.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { DesiredStateRegistry } from '../../src/queue/registry.js';
import { NameLocks } from '../../src/queue/name-lock.js';
import { keys } from '../../src/redis-keys.js';
import { createReconcileRunner } from '../../src/reconciler/run.js';
import type { SweepReport } from '../../src/reconciler/report.js';
import { startSimulator } from '../../src/sim/index.js';
import { stateView } from '../../src/sim/control.js';
import type { RecordedRequest } from '../../src/sim/simulator.js';
import { redisSeedRecords } from '../../src/queue/seed-records.js';
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
  /** A sweep as the schedule runs it; with `byHand`, as the CLI's reconcile job (dry when asked). */
  sweep(byHand?: { dryRun: boolean }): Promise<SweepReport>;
  /** The Proxmox requests the simulator saw since the last call (its log is cleared). */
  requests(): RecordedRequest[];
  /** Destroys a VM behind the service's back, as in the Proxmox UI. */
  destroyByHand(vmid: number): void;
  /** The seed records in Redis, as `<node>/<volid>`. */
  seedRecords(): Promise<string[]>;
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
async function withSimWorld(foreignVms: number, configured: string[], body: (w: SimWorld) => Promise<void>, seedListingEvery?: number): Promise<void> {
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
      budgets: { pollMs: 20, cloneSeconds: 30, taskSeconds: 30, runningSeconds: 30, addressSeconds: 30, firstAddressSeconds: 0.3 },
      ...(seedListingEvery === undefined ? {} : { reconciler: { seedListingEvery } }),
    },
  });
  const queues = createQueues(redis, prefix, config.jobs);
  try {
    const api = createHttpApi({ baseUrl: sim.url, tokenFile });
    // Its seed records on the test's Redis, as the worker's provider keeps them (SPEC 5, 26).
    const provider = createProvider({ api, config, logger: silentLogger(), seedRecords: redisSeedRecords(redis, prefix) });
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
        const spec = validateFields<Record<string, unknown>>(createSpecFields, { name, uid, waitForAddress: false }, limits);
        if (!spec.ok) throw new Error('bad spec');
        await registry.recordPresent(name, uid, { ...spec.value });
      },
      make: (name, uid, node) => provider.create({ name, uid, ...(node === undefined ? {} : { node }), cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false }, ctx),
      view: () => JSON.parse(JSON.stringify(stateView(sim.sim))) as SimState,
      async sweep(byHand) {
        const report = await run({ dryRun: byHand?.dryRun ?? false }, byHand === undefined ? ctx : { ...ctx, jobId: ownJobId('reconcile') });
        if ('skipped' in report) throw new Error('skipped');
        return report;
      },
      requests: () => sim.sim.requests.splice(0),
      destroyByHand(vmid) {
        const vm = sim.sim.state.vmAt(vmid);
        if (vm) sim.sim.state.removeVm(vm);
      },
      async seedRecords() {
        return Object.keys(await redis.hgetall(keys.seeds(prefix))).sort();
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

/** Until pvestatd has sampled them (SPEC 23): a fresh clone is nameless in the listing, so a sweep reads its config. */
async function namedInListing(w: SimWorld, vmids: number[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const entries = await w.api.clusterResources('vm', { signal: w.ctx.signal });
    if (vmids.every((vmid) => entries.some((e) => e.vmid === vmid && e.name !== undefined))) return;
    if (Date.now() > deadline) throw new Error('pvestatd never named the VMs');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function seedsIn(state: SimState): string[] {
  return state.nodes.flatMap((n) => n.storages.flatMap((st) => st.volumes.filter((v) => v.volid.endsWith('-seed.iso')).map((v) => `${n.node} ${v.volid}`)));
}

/**
 * After the process's first (listing) sweep, the seed of `old` with no
 * record: an older release, which kept no seed records, made the VM, and
 * it was destroyed by hand since.
 */
async function olderReleaseSeedLeft(w: SimWorld): Promise<void> {
  expect((await w.sweep()).seeds.storagesListed).to.equal(true);
  const older = createProvider({ api: w.api, config: w.config, logger: silentLogger() });
  await w.record('old', 'uid-old');
  const made = await older.create({ name: 'old', uid: 'uid-old', cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false }, w.ctx);
  w.destroyByHand(made.vmid);
  await w.registry.recordAbsent('old', undefined);
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

  it('removes the seed of a create whose VM was destroyed behind our back in a steady sweep of one listing, no storage call (SPEC 5, 26)', async () => {
    await withSimWorld(3, ['pv1-1', 'pv1-2'], async (w) => {
      const made: CreateResult[] = [];
      for (const [name, uid, node] of [['web', 'uid-web', 'pv1-2'], ['keep', 'uid-keep', 'pv1-1']] as const) {
        await w.record(name, uid);
        const vm = await w.make(name, uid, node);
        // What the create job writes when it ends: the pair a steady sweep confirms from the listing.
        await w.registry.recordLastKnown(name, { state: 'Running', vmid: vm.vmid, node: vm.node, at: new Date().toISOString() });
        made.push(vm);
      }
      await namedInListing(w, made.map((vm) => vm.vmid));
      w.requests();
      expect((await w.sweep()).seeds.storagesListed).to.equal(true); // the process's first sweep: the backstop
      // Per node one content and one storage listing, the shared flags then cached for the records.
      expect(w.requests().filter((r) => r.method === 'GET' && /\/storage(\/[^/]+\/content)?$/.test(r.path)).length).to.equal(4);
      const steady = await w.sweep();
      expect(steady.seeds.storagesListed).to.equal(false);
      expect(w.requests().map((r) => `${r.method} ${r.path}`)).to.deep.equal(['GET /api2/json/cluster/resources']);

      w.destroyByHand(made[0]?.vmid ?? 0);
      await w.registry.recordAbsent('web', undefined);
      const report = await w.sweep();

      expect(report.seeds.deleted).to.deep.equal([{ name: 'web', node: 'pv1-2', volid: 'proxy-seeds:iso/web-seed.iso' }]);
      // The listing, the delete and its task's polls; no storage content or storage listing.
      expect(w.requests().filter((r) => r.method === 'GET' && /\/storage(\/[^/]+\/content)?$/.test(r.path))).to.deep.equal([]);
      expect(seedsIn(w.view())).to.deep.equal(['pv1-1 proxy-seeds:iso/keep-seed.iso']);
      expect(await w.seedRecords()).to.deep.equal(['pv1-1/proxy-seeds:iso/keep-seed.iso']);
    });
  });

  it('removes a seed no record names (an older release uploaded it) on the backstop sweep, and keeps it until then (SPEC 5)', async () => {
    await withSimWorld(0, ['pv1-1'], async (w) => {
      await olderReleaseSeedLeft(w);
      expect(await w.seedRecords()).to.deep.equal([]);

      const steady = await w.sweep();
      expect(steady.seeds.storagesListed).to.equal(false);
      expect(seedsIn(w.view())).to.deep.equal(['pv1-1 proxy-seeds:iso/old-seed.iso']);

      const backstop = await w.sweep();
      expect(backstop.seeds.storagesListed).to.equal(true);
      expect(backstop.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
      expect(seedsIn(w.view())).to.deep.equal([]);
    }, 2);
  });

  it('a sweep asked for by hand, dry or not, lists the storages at once and names the seed no record names (SPEC 5, issue 25)', async () => {
    await withSimWorld(0, ['pv1-1'], async (w) => {
      await olderReleaseSeedLeft(w);
      expect((await w.sweep()).seeds.storagesListed).to.equal(false);

      const dry = await w.sweep({ dryRun: true });
      expect(dry.seeds.storagesListed).to.equal(true);
      expect(dry.seeds.foundByListing).to.deep.equal([{ name: 'old', node: 'pv1-1', volid: 'proxy-seeds:iso/old-seed.iso' }]);
      expect(seedsIn(w.view())).to.deep.equal(['pv1-1 proxy-seeds:iso/old-seed.iso']);

      const real = await w.sweep({ dryRun: false });
      expect(real.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
      expect(seedsIn(w.view())).to.deep.equal([]);
    });
  });

  it('a create killed between its seed record and its upload leaves neither seed nor record after the sweeps (SPEC 5, 22)', async () => {
    await withSimWorld(0, ['pv1-1'], async (w) => {
      await w.sweep();
      const killedAtUpload = createProvider({ api: { ...w.api, upload: () => Promise.reject(new Error('SIGKILL')) }, config: w.config, logger: silentLogger(), seedRecords: redisSeedRecords(w.redis, w.prefix) });
      await w.record('web', 'uid-web');
      await killedAtUpload.create({ name: 'web', uid: 'uid-web', cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false }, w.ctx).catch(() => undefined);
      expect(await w.seedRecords()).to.deep.equal(['pv1-1/proxy-seeds:iso/web-seed.iso']);
      const vm = w.view().vms.find((v) => v.config.name === 'web');
      if (!vm) throw new Error('the clone did not happen');
      w.destroyByHand(vm.vmid);
      await w.registry.recordAbsent('web', undefined);

      const report = await w.sweep();

      expect(report.seeds.deleted.map((s) => s.name)).to.deep.equal(['web']);
      expect(await w.seedRecords()).to.deep.equal([]);
      expect(seedsIn(w.view())).to.deep.equal([]);
    });
  });
  it("SPEC 28: a create from a protected template killed before its config write leaves a clone with the template's flag; its delete clears the flag and removes the VM", async () => {
    await withSimWorld(0, ['pv1-1'], async (w) => {
      await w.api.putConfig('pv1-1', 9001, { protection: 1 });
      const killedAtConfig = createProvider({ api: { ...w.api, putConfig: () => Promise.reject(new Error('SIGKILL')) }, config: w.config, logger: silentLogger() });
      await w.record('halfway', 'uid-halfway');
      let killed: unknown;
      await killedAtConfig.create({ name: 'halfway', uid: 'uid-halfway', cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false }, w.ctx).catch((err: unknown) => (killed = err));
      expect(String(killed)).to.contain('SIGKILL');
      const clone = w.view().vms.find((v) => v.config.name === 'halfway');
      expect(clone?.config).to.include({ protection: 1, tags: 'debian' });
      await w.registry.recordAbsent('halfway', undefined);

      expect(await retriedWhileTransient(() => w.provider.delete({ name: 'halfway', uid: 'uid-halfway' }, w.ctx))).to.include({ deleted: true });
      expect(w.view().vms.some((v) => v.vmid === clone?.vmid)).to.equal(false);
      expect(w.view().vms.find((v) => v.vmid === 9001)?.config.protection, "the template's flag is the operator's").to.equal(1);
    });
  });

  it('SPEC 28: a create from a protected template ends Running and unprotected; a delete of a VM someone protected fails at once naming what to clear; the sweeps report it and enqueue nothing', async () => {
    await withSimWorld(0, ['pv1-1'], async (w) => {
      await w.api.putConfig('pv1-1', 9001, { protection: 1 });
      await w.record('guarded', 'uid-guarded');
      const made = await w.provider.create({ name: 'guarded', uid: 'uid-guarded', cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: true }, w.ctx);
      expect(made.state).to.equal('Running');
      const vmConfig = (): Record<string, string | number> | undefined => w.view().vms.find((v) => v.vmid === made.vmid)?.config;
      expect(vmConfig()).to.not.have.property('protection');
      expect(w.view().vms.find((v) => v.vmid === 9001)?.config.protection).to.equal(1);

      // Someone protects the VM, then the service is asked to delete it.
      await w.api.putConfig('pv1-1', made.vmid, { protection: 1 });
      await w.registry.recordAbsent('guarded', undefined);
      // Until pvestatd samples it, a fresh clone is `unknown` in the listing and any delete of it is Transient
      // (SPEC 23, correction 1), protected or not. Once listed, one attempt is Permanent: no retry is needed.
      await namedInListing(w, [made.vmid]);
      const listed = (await w.api.clusterResources('vm', { signal: w.ctx.signal })).find((e) => e.vmid === made.vmid);
      expect(listed).to.include({ name: 'guarded', status: 'running' });
      w.requests();
      const err = await w.provider.delete({ name: 'guarded', uid: 'uid-guarded' }, w.ctx).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(PermanentError);
      expect((err as PermanentError).reason).to.equal(
        `VM guarded (vmid ${made.vmid} on pv1-1) is protected: clear its protection (qm set ${made.vmid} --protection 0, or Options > Protection in the GUI) and delete again`,
      );
      // At once: reads only, no stop, no destroy.
      expect(w.requests().filter((r) => r.method !== 'GET')).to.deep.equal([]);
      expect(vmConfig()).to.include({ protection: 1 });

      for (const round of [1, 2]) {
        const report = await w.sweep();
        expect(report.orphans.protected.map((o) => [o.name, o.vmid]), `sweep ${round}`).to.deep.equal([['guarded', made.vmid]]);
        expect(report.orphans.deleted, `sweep ${round}`).to.deep.equal([]);
        expect(await w.queues.vm.getJobs(['waiting', 'delayed', 'active']), `sweep ${round}`).to.deep.equal([]);
      }
      expect(vmConfig()).to.include({ protection: 1 });
    });
  });
});
