// SPEC 5, 26 (issue 25): a sweep asked for by hand (the CLI's reconcile
// job, `reconcile-<uuid>`), dry or not, lists the seed storages whatever
// reconciler.seedListingEvery says, so an operator sees and sweeps a seed
// no record names at once; the schedule's sweeps (`repeat:reconcile:<n>`)
// keep the backstop's count. The report names the seeds only the listing
// found. Over createProvider and the FakeProxmox seam fake, records and the
// count in the real Redis.
import { expect } from 'chai';
import { ownJobId, schedulerId } from '../../src/job-table/job-ids.js';
import type { CreateSpec } from '../../src/provider/types.js';
import { NODE, SEEDS, proxmoxWorld } from './proxmox-world.js';
import type { ProxmoxWorld } from './proxmox-world.js';

const OLD_SEED = `${SEEDS}:iso/old-seed.iso`;

function spec(name: string, uid: string): CreateSpec {
  return { name, uid, cores: 1, memoryMiB: 512, diskGiB: 10, waitForAddress: false };
}

describe('reconcile sweep asked for by hand (SPEC 5, 26, issue 25, real Redis)', () => {
  let w: ProxmoxWorld;
  let scheduledRuns = 0;

  afterEach(async () => {
    await w.close();
  });

  const byHand = (dryRun: boolean) => w.report(dryRun, ownJobId('reconcile'));
  const scheduled = () => w.report(false, `repeat:${schedulerId('reconcile')}:${1_733_100_000_000 + scheduledRuns++ * 300_000}`);

  /** A world past its process's first (listing) sweep, with a seed no record names under a tombstoned name. */
  async function olderReleaseSeed(seedListingEvery: number): Promise<void> {
    w = proxmoxWorld({ seedRecords: true, seedListingEvery });
    await w.tombstone('old', 'uid-old');
    expect((await scheduled()).seeds.storagesListed).to.equal(true);
    w.seed('old');
  }

  it('a dry run by hand lists the storages and names the unrecorded seed it would delete, then a sweep by hand deletes it', async () => {
    await olderReleaseSeed(1000);
    const steady = await scheduled();
    expect([steady.seeds.storagesListed, steady.seeds.foundByListing, steady.seeds.deleted]).to.deep.equal([false, [], []]);

    const dry = await byHand(true);
    expect(dry.seeds.storagesListed).to.equal(true);
    expect(dry.seeds.foundByListing).to.deep.equal([{ name: 'old', node: NODE, volid: OLD_SEED }]);
    expect(dry.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
    expect(w.seedsLeft()).to.include(OLD_SEED);

    const real = await byHand(false);
    expect(real.seeds.storagesListed).to.equal(true);
    expect(real.seeds.foundByListing.map((s) => s.name)).to.deep.equal(['old']);
    expect(real.seeds.deleted.map((s) => s.name)).to.deep.equal(['old']);
    expect(w.seedsLeft()).to.not.include(OLD_SEED);
  });

  it('names only the seeds no record names: the seed a create recorded is not among them', async () => {
    await olderReleaseSeed(1000);
    await w.present('web', 'uid-web');
    await w.h.provider.create(spec('web', 'uid-web'), w.h.ctx);

    const dry = await byHand(true);

    expect(dry.seeds.listed).to.equal(2);
    expect(dry.seeds.foundByListing.map((s) => s.name)).to.deep.equal(['old']);
  });

  it('leaves the schedule its backstop: a dry run by hand moves the count on not at all, a real one starts it again', async () => {
    await olderReleaseSeed(3);
    const listed = async (sweep: Promise<{ seeds: { storagesListed: boolean } }>): Promise<boolean> => (await sweep).seeds.storagesListed;

    // count 0 after the first sweep: scheduled 1, dry by hand (count kept), scheduled 2, scheduled 3 (lists, back to 0),
    // scheduled 1, real by hand (lists, back to 0), scheduled 1, scheduled 2, scheduled 3 (lists).
    const seen = [
      await listed(scheduled()),
      await listed(byHand(true)),
      await listed(scheduled()),
      await listed(scheduled()),
      await listed(scheduled()),
      await listed(byHand(false)),
      await listed(scheduled()),
      await listed(scheduled()),
      await listed(scheduled()),
    ];

    expect(seen).to.deep.equal([false, true, false, true, false, true, false, false, true]);
  });
});
