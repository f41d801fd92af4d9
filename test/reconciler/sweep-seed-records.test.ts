// SPEC 5, 26: a steady sweep judges seeds from the records each create
// writes before its upload, with no storage listing; the storage listing
// runs as a backstop on the first sweep of a process and every
// reconciler.seedListingEvery sweeps, for seeds no record names. Over
// createProvider and the FakeProxmox seam fake, records in the real Redis.
import { expect } from 'chai';
import { keys } from '../../src/redis-keys.js';
import { redisSeedRecords } from '../../src/queue/seed-records.js';
import type { CreateSpec } from '../../src/provider/types.js';
import { NODE, SEEDS, proxmoxWorld } from './proxmox-world.js';
import type { ProxmoxWorld } from './proxmox-world.js';

const STORAGE_CALLS = ['storageContent', 'storages'];

function spec(name: string, uid: string): CreateSpec {
  return { name, uid, cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false };
}

describe('reconcile sweep over the seed records (SPEC 5, 26, real Redis)', () => {
  let w: ProxmoxWorld;

  afterEach(async () => {
    await w.close();
  });

  /** A sweep, and the seam's storage calls it made. */
  async function sweepCounting(dryRun = false): Promise<{ report: Awaited<ReturnType<ProxmoxWorld['report']>>; storageCalls: number }> {
    const before = w.pve.calls.length;
    const report = await w.report(dryRun);
    const storageCalls = w.pve.calls.slice(before).filter((c) => STORAGE_CALLS.includes(c.method)).length;
    return { report, storageCalls };
  }

  async function records(): Promise<string[]> {
    return Object.keys(await w.redis.hgetall(keys.seeds(w.prefix))).sort();
  }

  /** The name's VM goes behind our back (destroyed in the Proxmox UI), its name deleted with no job left. */
  async function goneByHand(name: string): Promise<void> {
    for (const vm of w.pve.vmsNamed(name)) w.pve.vms.delete(vm.vmid);
    await w.registry.recordAbsent(name, undefined);
  }

  it('removes a seed a create uploaded, once its VM was deleted behind our back, in a steady sweep with no storage listing', async () => {
    w = proxmoxWorld({ seedRecords: true });
    await w.present('web', 'uid-web');
    await w.h.provider.create(spec('web', 'uid-web'), w.h.ctx);
    expect((await sweepCounting()).report.seeds.storagesListed).to.equal(true); // the process's first sweep: the backstop

    await goneByHand('web');
    const { report, storageCalls } = await sweepCounting();

    expect(report.seeds.storagesListed).to.equal(false);
    expect(storageCalls).to.equal(0);
    expect(report.seeds.deleted.map((s) => [s.name, s.node, s.volid])).to.deep.equal([['web', NODE, `${SEEDS}:iso/web-seed.iso`]]);
    expect(w.seedsLeft()).to.not.include(`${SEEDS}:iso/web-seed.iso`);
    expect(await records()).to.deep.equal([]);
  });

  it('removes a seed no record names (uploaded by hand, or by an older release) on the backstop sweep, every seedListingEvery sweeps', async () => {
    w = proxmoxWorld({ seedRecords: true, seedListingEvery: 3 });
    await w.tombstone('old', 'uid-old');
    expect((await sweepCounting()).report.seeds.storagesListed).to.equal(true);
    w.seed('old'); // no record: an older release uploaded it

    const steady = [await sweepCounting(), await sweepCounting()];
    expect(steady.map((s) => [s.storageCalls, s.report.seeds.deleted.length])).to.deep.equal([
      [0, 0],
      [0, 0],
    ]);
    expect(w.seedsLeft()).to.include(`${SEEDS}:iso/old-seed.iso`);

    const backstop = await sweepCounting();
    expect(backstop.report.seeds.storagesListed).to.equal(true);
    expect(backstop.storageCalls).to.equal(2); // one content and one storage listing on the one node
    expect(backstop.report.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
    expect(w.seedsLeft()).to.not.include(`${SEEDS}:iso/old-seed.iso`);
  });

  it('the first sweep of a process lists the storages whatever the count', async () => {
    w = proxmoxWorld({ seedRecords: true, seedListingEvery: 1000 });
    await w.tombstone('old', 'uid-old');
    w.seed('old');

    const first = await sweepCounting();

    expect(first.report.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
  });

  it('a create killed between its record and its upload leaves nothing behind after the sweeps', async () => {
    w = proxmoxWorld({ seedRecords: true });
    await w.report(); // the backstop, out of the way
    await w.present('web', 'uid-web');
    w.pve.failNext('upload', new Error('SIGKILL'));
    await w.h.provider.create(spec('web', 'uid-web'), w.h.ctx).catch(() => undefined);
    expect(await records()).to.deep.equal([`${NODE}/${SEEDS}:iso/web-seed.iso`]);

    await goneByHand('web');
    const { report } = await sweepCounting();

    expect(report.seeds.deleted.map((s) => s.name)).to.deep.equal(['web']);
    expect(await records()).to.deep.equal([]);
    expect(w.seedsLeft()).to.not.include(`${SEEDS}:iso/web-seed.iso`);
    const again = await sweepCounting();
    expect(again.report.seeds.listed).to.equal(0);
  });

  it('never deletes the seed of a live VM from its record, in steady and backstop sweeps alike', async () => {
    w = proxmoxWorld({ seedRecords: true, seedListingEvery: 2 });
    await w.present('web', 'uid-web');
    await w.h.provider.create(spec('web', 'uid-web'), w.h.ctx);
    // Its name deleted, its delete job still pending: the VM is there, so is its seed.
    await w.tombstone('db', 'uid-db');
    await w.h.provider.create(spec('db', 'uid-db'), w.h.ctx);

    // A dry run first: it enqueues no delete, so no pending job keeps db's seed, only its VM.
    const sweeps = [await sweepCounting(true), await sweepCounting(), await sweepCounting()];

    // The dry run lists (the process has not listed yet), so does the first real sweep; the next reads the records.
    expect(sweeps.map((s) => s.report.seeds.storagesListed)).to.deep.equal([true, true, false]);
    expect(sweeps.flatMap((s) => s.report.seeds.deleted)).to.deep.equal([]);
    expect(w.seedsLeft()).to.include.members([`${SEEDS}:iso/web-seed.iso`, `${SEEDS}:iso/db-seed.iso`]);
    expect(await records()).to.deep.equal([`${NODE}/${SEEDS}:iso/db-seed.iso`, `${NODE}/${SEEDS}:iso/web-seed.iso`]);
  });

  it('a dry run lists when a real sweep would, and leaves the schedule where it was', async () => {
    w = proxmoxWorld({ seedRecords: true, seedListingEvery: 2 });
    const listed = async (dryRun: boolean): Promise<boolean> => (await w.report(dryRun)).seeds.storagesListed;

    // first sweep (listed), dry (a real one now would be the 1st of 2), real 1st, dry (would be the 2nd), real 2nd.
    const seen = [await listed(false), await listed(true), await listed(false), await listed(true), await listed(false)];

    expect(seen).to.deep.equal([true, false, false, true, true]);
  });

  it('a dry run as a process\'s first sweep leaves the listing to its first real sweep, which deletes what the dry run found', async () => {
    w = proxmoxWorld({ seedRecords: true, seedListingEvery: 1000 });
    await w.tombstone('old', 'uid-old');
    w.seed('old'); // no record: an older release uploaded it

    const dry = await sweepCounting(true);
    const real = await sweepCounting();

    expect(dry.report.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']); // would delete
    expect(real.report.seeds.storagesListed).to.equal(true);
    expect(real.report.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
    expect(w.seedsLeft()).to.not.include(`${SEEDS}:iso/old-seed.iso`);
  });

  it('reads the records a release cannot parse as absent, so the backstop still finds their seeds', async () => {
    w = proxmoxWorld({ seedRecords: true });
    await w.redis.hset(keys.seeds(w.prefix), `${NODE}/x`, '{not json');
    expect(await redisSeedRecords(w.redis, w.prefix).list()).to.deep.equal([]);
  });
});
