// What every provider operation is built from: the seam, the config it
// reads, the process logger, and the clock and sleep it polls with (tests
// inject both so polling never really waits), and the waits one provider
// instance shares (SPEC 26), the seed records and the storages' shared flags.
import type { Logger } from '../log.js';
import type { Config } from '../config/types.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import type { SeedRecords } from './seed-records.js';
import type { Sleep } from './waits/sleep.js';
import type { Waits } from './waits/waits.js';

export type ProviderConfig = Pick<Config, 'proxmox' | 'budgets'>;

export interface ProviderDeps {
  api: ProxmoxApi;
  config: ProviderConfig;
  logger: Logger;
  now: () => Date;
  sleep: Sleep;
  /** The process's shared waits (SPEC 26); without them each task and VM is polled on its own. */
  waits?: Waits;
  /** Where each uploaded seed is recorded (SPEC 5, 26); without it no record is kept and the sweep must list storages. */
  seedRecords?: SeedRecords;
  /**
   * The seed storages' `shared` flags by `<node>/<storage>`, kept for the
   * process: they change only with the storage config, and every storage
   * listing of the seeds (the sweep's backstop) refreshes them.
   */
  storageShared?: Map<string, boolean>;
}
