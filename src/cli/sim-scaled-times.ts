// On the built-in simulator (proxmox.url "sim") every Proxmox duration is
// scaled by sim.timeScale, so the service's guesses at Proxmox durations
// are scaled the same way when left at their defaults:
// budgets.firstAddressSeconds (a guess at a real boot: unscaled, a new
// user's first VM on `npm start` would wait 30 s for an address the
// simulated guest has after a few) and proxmox.daemonSlotWorstCaseScale
// (how long an abandoned call may still hold a pvedaemon worker) (SPEC 8, 28).
import type { Config } from '../config/index.js';
import { clustersOf } from '../config/clusters.js';

const FIRST_ADDRESS_DEFAULT_SECONDS = 30;
const WORST_CASE_SCALE_DEFAULT = 1;

export function withSimScaledTimes(config: Config, env: NodeJS.ProcessEnv): Config {
  // Every cluster simulated (SPEC 32; the one-cluster form: proxmox.url "sim"): a real cluster's times stay unscaled.
  if (!clustersOf(config).every((cluster) => cluster.url === 'sim')) return config;
  const scale = Math.min(1, config.sim.timeScale);
  let scaled = config;
  if (env.BUDGETS_FIRST_ADDRESS_SECONDS === undefined && config.budgets.firstAddressSeconds === FIRST_ADDRESS_DEFAULT_SECONDS) {
    scaled = { ...scaled, budgets: { ...scaled.budgets, firstAddressSeconds: FIRST_ADDRESS_DEFAULT_SECONDS * scale } };
  }
  // The key must be above 0: a simulator at timeScale 0 keeps the real holds.
  if (env.PROXMOX_DAEMON_SLOT_WORST_CASE_SCALE === undefined && config.proxmox.daemonSlotWorstCaseScale === WORST_CASE_SCALE_DEFAULT && scale > 0) {
    scaled = { ...scaled, proxmox: { ...scaled.proxmox, daemonSlotWorstCaseScale: scale } };
  }
  return scaled;
}
