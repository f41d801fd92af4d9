// The seed listing's schedule (SPEC 5, 26, `reconciler.seedListingEvery`):
// every Nth sweep, counted in Redis so it holds whichever worker process
// runs the sweep (one sweep at a time, the sweep lock), and the first
// sweep of each process, which also fills that process's cache of the
// storages' shared flags. A dry run lists when a real sweep would, and
// moves the schedule on neither way: not the count, and it is no process's
// first sweep, so the real sweep after it lists too and deletes what the
// dry run said it would.
import type { RedisClient } from '../redis-script.js';
import { keys } from '../redis-keys.js';
import type { SeedListingSchedule } from './ports.js';

export function seedListingSchedule(redis: RedisClient, prefix: string, every: number): SeedListingSchedule {
  const key = keys.sweepsSinceSeedListing(prefix);
  let listedHere = false;
  return {
    async due(dryRun) {
      const since = dryRun ? Number((await redis.get(key)) ?? 0) + 1 : await redis.incr(key);
      return !listedHere || since >= every;
    },
    async listed(dryRun) {
      if (dryRun) return;
      listedHere = true;
      await redis.set(key, '0');
    },
  };
}
