// What every provider operation is built from: the seam, the config it
// reads, the process logger, and the clock and sleep it polls with (tests
// inject both so polling never really waits), and the waits one provider
// instance shares (SPEC 26).
import type { Logger } from '../log.js';
import type { Config } from '../config/types.js';
import type { ProxmoxApi } from '../proxmox/api.js';
import type { Sleep } from './sleep.js';
import type { Waits } from './waits.js';

export type ProviderConfig = Pick<Config, 'proxmox' | 'budgets'>;

export interface ProviderDeps {
  api: ProxmoxApi;
  config: ProviderConfig;
  logger: Logger;
  now: () => Date;
  sleep: Sleep;
  /** The process's shared waits (SPEC 26); without them each task and VM is polled on its own. */
  waits?: Waits;
}
