// On the built-in simulator (proxmox.url "sim") every Proxmox duration is
// scaled by sim.timeScale, a guest's boot too; budgets.firstAddressSeconds
// is a guess at a real boot, so at its default it is scaled the same way.
// Otherwise a new user's first VM on `npm start` waited 30 s for an
// address the simulated guest had after 4.7 (issue 27, SPEC 8, 28).
import type { Config } from '../config/index.js';

const FIRST_ADDRESS_DEFAULT_SECONDS = 30;

export function withSimFirstAddress(config: Config, env: NodeJS.ProcessEnv): Config {
  if (config.proxmox.url !== 'sim' || env.BUDGETS_FIRST_ADDRESS_SECONDS !== undefined) return config;
  if (config.budgets.firstAddressSeconds !== FIRST_ADDRESS_DEFAULT_SECONDS) return config;
  return { ...config, budgets: { ...config.budgets, firstAddressSeconds: FIRST_ADDRESS_DEFAULT_SECONDS * config.sim.timeScale } };
}
