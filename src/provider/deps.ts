// What every provider operation is built from: the seam, the config it
// reads, the process logger, and the clock and sleep it polls with (tests
// inject both so polling never really waits), and the waits one provider
// instance shares (SPEC 26), the seed records, the storages' shared flags
// and the phone-home tokens and signals (SPEC 29).
// createProviderDeps is the one place they are built: createProvider
// (the worker) and the provider tests' harness both call it, so a test of
// one operation runs on the same waits production does.
import type { Logger } from '../log.js';
import type { Config } from '../config/types.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import type { ReadySignals } from './ready-signals.js';
import type { SeedRecords } from './seed-records.js';
import type { LearnedTimesStore } from './waits/learned-times.js';
import { realSleep, type Sleep } from './waits/sleep.js';
import { createWaits, type Waits } from './waits/waits.js';

/** `http.publicUrl` is where a phone-home guest calls (SPEC 29); absent, as empty: no image may phone home. */
export type ProviderConfig = Pick<Config, 'proxmox' | 'budgets'> & { http?: Pick<Config['http'], 'publicUrl'> };

export interface ProviderDeps {
  api: ProxmoxApi;
  config: ProviderConfig;
  logger: Logger;
  now: () => Date;
  sleep: Sleep;
  /** The process's shared waits (SPEC 26): the task and running boards, the shared step reads, the learned times. */
  waits: Waits;
  /** Where each uploaded seed is recorded (SPEC 5, 26); without it no record is kept and the sweep must list storages. */
  seedRecords?: SeedRecords;
  /**
   * The seed storages' `shared` flags by `<node>/<storage>`, kept for the
   * process: they change only with the storage config, and every storage
   * listing of the seeds (the sweep's backstop) refreshes them.
   */
  storageShared: Map<string, boolean>;
  /** Readiness `phone-home`'s tokens and signals (SPEC 29); without it a phone-home image's create is refused. */
  readySignals?: ReadySignals;
}

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
  /** Where the learned wait times are shared by every worker process and kept across restarts (SPEC 26). */
  learnedTimes?: LearnedTimesStore;
  /** Where phone-home tokens are stored and their signals read (SPEC 29). */
  readySignals?: ReadySignals;
}

/** One provider instance's deps: one worker process, one set of waits (SPEC 26). */
export function createProviderDeps(options: ProviderOptions): ProviderDeps {
  const now = options.now ?? ((): Date => new Date());
  const sleep = options.sleep ?? realSleep;
  const { api, logger } = options;
  return {
    api,
    config: options.config,
    logger,
    now,
    sleep,
    waits: createWaits({ api, logger, now, sleep, pollMs: options.config.budgets.pollMs, ...(options.learnedTimes ? { learnedTimes: options.learnedTimes } : {}) }),
    ...(options.seedRecords ? { seedRecords: options.seedRecords } : {}),
    storageShared: new Map(),
    ...(options.readySignals ? { readySignals: options.readySignals } : {}),
  };
}
