// createProvider: the Provider the job layer calls (SPEC 10 to 16, 19),
// built on the seam alone.
import type { Logger } from '../log.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import type { Provider } from './types.js';
import type { ProviderConfig, ProviderDeps } from './deps.js';
import { realSleep, type Sleep } from './waits/sleep.js';
import { getVm } from './get.js';
import { findByName, findByNames, listByTag, listTaggedOrNamed } from './list.js';
import { deleteSeed, listRecordedSeeds, listSeeds } from './seeds.js';
import type { SeedRecords } from './seed-records.js';
import type { LearnedTimesStore } from './waits/learned-times.js';
import { createVm } from './create.js';
import { deleteVm } from './delete.js';
import { health } from './health.js';
import { createWaits } from './waits/waits.js';

export interface ProviderOptions {
  api: ProxmoxApi;
  config: ProviderConfig;
  logger: Logger;
  /** The clock polls and marks use; tests inject one. */
  now?: () => Date;
  /** How polls wait; tests inject one that returns at once. */
  sleep?: Sleep;
  /** Where each seed a create uploads is recorded, before the upload (SPEC 5, 26). */
  seedRecords?: SeedRecords;
  /** Where the learned wait times are shared by every worker process and kept across restarts (SPEC 26, issue 27). */
  learnedTimes?: LearnedTimesStore;
}

export function createProvider(options: ProviderOptions): Provider {
  const now = options.now ?? ((): Date => new Date());
  const sleep = options.sleep ?? realSleep;
  const deps: ProviderDeps = {
    api: options.api,
    config: options.config,
    logger: options.logger,
    now,
    sleep,
    // Shared by every operation of this provider: one worker process, one board (SPEC 26).
    waits: createWaits({ api: options.api, logger: options.logger, now, sleep, pollMs: options.config.budgets.pollMs, ...(options.learnedTimes ? { learnedTimes: options.learnedTimes } : {}) }),
    ...(options.seedRecords ? { seedRecords: options.seedRecords } : {}),
    storageShared: new Map(),
  };
  return {
    get: (ref, ctx) => getVm(deps, ref, ctx),
    findByName: (name, ctx) => findByName(deps, name, ctx),
    findByNames: (names, ctx) => findByNames(deps, names, ctx),
    listByTag: (ctx) => listByTag(deps, ctx),
    listTaggedOrNamed: (names, ctx, known) => listTaggedOrNamed(deps, names, ctx, known),
    listSeeds: (ctx) => listSeeds(deps, ctx),
    listRecordedSeeds: (ctx) => listRecordedSeeds(deps, ctx),
    deleteSeed: (seed, ctx) => deleteSeed(deps, seed, ctx),
    create: (spec, ctx) => createVm(deps, spec, ctx),
    delete: (request, ctx) => deleteVm(deps, request, ctx),
    health: (ctx) => health(deps, ctx),
  };
}
